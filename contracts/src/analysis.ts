import { z } from 'zod';
import { pageQuerySchema, uuid } from './common.ts';
import { ANALYSIS_PROVIDERS, stripStrayMarkers } from './analysis-text.ts';

export * from './analysis-text.ts';

const MAX_ITEMS = 20;
const confidence = z.number().min(0).max(1);

/**
 * What a provider produces (`docs/architecture.md` › AI analysis). The openai provider sends this schema to
 * the model as its
 * strict JSON-schema response format and validates the answer with it, so only keywords that
 * OpenAI's strict mode accepts are used here (no string lengths).
 */
export const AnalysisFindingsSchema = z.object({
  description: z.string().describe('What the image shows, in plain clinical language'),
  differentialDiagnosis: z
    .array(
      z.object({
        condition: z.string().describe('A condition consistent with the image'),
        confidence: confidence.describe('Likelihood from 0 to 1'),
      }),
    )
    .max(MAX_ITEMS)
    .describe('Conditions to consider, most likely first; empty when none can be named'),
  treatment: z.array(z.string()).max(MAX_ITEMS).describe('Treatment considerations'),
  followUp: z.array(z.string()).max(MAX_ITEMS).describe('Recommended follow-up steps'),
  warnings: z.array(z.string()).max(MAX_ITEMS).describe('Limitations, quality problems and cautions'),
  confidence: confidence.describe('Overall confidence in the analysis from 0 to 1'),
});
export type AnalysisFindings = z.infer<typeof AnalysisFindingsSchema>;

export const AnalysisProviderSchema = z.enum(ANALYSIS_PROVIDERS).describe("'local' (technical report) or 'openai'");

/** One stored analysis as the API answers it. */
export const AnalysisSchema = AnalysisFindingsSchema.extend({
  id: uuid().describe('Analysis id'),
  imageId: uuid(),
  timestamp: z.string().describe('When the analysis was generated (ISO 8601)'),
  provider: AnalysisProviderSchema,
  model: z.string().describe('Model or engine that produced it'),
  disclaimer: z.string().describe('Shown with every analysis: it is not a diagnosis'),
});
export type Analysis = z.infer<typeof AnalysisSchema>;

/** GET /api/analysis/:imageId and POST …/run: the analysis plus whether it was a stored one. */
export const AnalysisResultSchema = AnalysisSchema.extend({
  reused: z.boolean().describe('True when a stored result was returned instead of a new run'),
});
export type AnalysisResult = z.infer<typeof AnalysisResultSchema>;

export const AnalysisImageParamsSchema = z.object({ imageId: uuid().describe('Image id') });

export const AnalysisHistoryQuerySchema = pageQuerySchema(10, 50).strict();
export type AnalysisHistoryQuery = z.infer<typeof AnalysisHistoryQuerySchema>;

/** Removes stray `**` from every text of an analysis. */
export function cleanFindings(findings: AnalysisFindings): AnalysisFindings {
  return {
    description: stripStrayMarkers(findings.description),
    differentialDiagnosis: findings.differentialDiagnosis.map((d) => ({
      condition: stripStrayMarkers(d.condition),
      confidence: d.confidence,
    })),
    treatment: findings.treatment.map(stripStrayMarkers),
    followUp: findings.followUp.map(stripStrayMarkers),
    warnings: findings.warnings.map(stripStrayMarkers),
    confidence: findings.confidence,
  };
}

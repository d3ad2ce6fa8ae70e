import type { Analysis } from '@medshare/contracts';
import { stripStrayMarkers } from '@medshare/contracts/analysis-text';
import { ApiError } from '../../../lib/api-client';
import type { DisplaySettings } from '../api/analysis';
import { formatDateTime } from '../../../lib/display-settings';

export { formatConfidence } from '@medshare/contracts/analysis-text';

/**
 * A time in the configured locale and time zone; the defaults of `docs/architecture.md` › Settings when those
 * are unusable (lib/display-settings.ts).
 */
export function formatAnalysisTime(iso: string, display: DisplaySettings): string {
  return formatDateTime(iso, display);
}

/** The server strips `**` already; stripping again keeps an older stored result clean too. */
export function cleanAnalysis<T extends Analysis>(analysis: T): T {
  return {
    ...analysis,
    description: stripStrayMarkers(analysis.description),
    differentialDiagnosis: analysis.differentialDiagnosis.map((d) => ({
      ...d,
      condition: stripStrayMarkers(d.condition),
    })),
    treatment: analysis.treatment.map(stripStrayMarkers),
    followUp: analysis.followUp.map(stripStrayMarkers),
    warnings: analysis.warnings.map(stripStrayMarkers),
  };
}

export function providerLabel(analysis: Pick<Analysis, 'provider' | 'model'>): string {
  return analysis.provider === 'local'
    ? 'Local technical report (no diagnostic model)'
    : `AI model ${analysis.model} (OpenAI-compatible)`;
}

export const ANALYSIS_ERRORS = {
  notFound: 'Image not found or not available',
  forbidden: 'Your role may not run AI analysis.',
  offline: 'The server could not be reached. Check your connection and try again.',
  failed: 'The analysis failed. Try again.',
  timeout: 'The analysis provider did not answer in time. Try again later.',
  provider: 'The analysis provider returned an unusable answer. Nothing was stored; try again.',
} as const;

/** What the screen says when a call fails: 404 in the product's words, else the server's own text. */
export function analysisErrorMessage(error: unknown): string {
  if (!(error instanceof ApiError)) return ANALYSIS_ERRORS.failed;
  if (error.status === 404) return ANALYSIS_ERRORS.notFound;
  if (error.status === 403) return ANALYSIS_ERRORS.forbidden;
  if (error.status === 0) return ANALYSIS_ERRORS.offline;
  if (error.message) return error.message;
  if (error.status === 504) return ANALYSIS_ERRORS.timeout;
  if (error.status === 502) return ANALYSIS_ERRORS.provider;
  return ANALYSIS_ERRORS.failed;
}

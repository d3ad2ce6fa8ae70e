import { type AnalysisFindings, AnalysisFindingsSchema, AnalysisTexts } from '@medshare/contracts';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AppError, loggedMessage } from '../../../errors.ts';
import { type AnalysisInput, type AnalysisMetadata, type AnalysisProvider, sharpOf } from './provider.ts';

/**
 * Any OpenAI-compatible chat-completions endpoint with image input (OpenAI, Azure, vLLM, Ollama).
 * The image goes as a PNG data URL; the only words about it are modality, body part and size.
 * The answer must follow the contract's schema (sent as a strict JSON-schema response format)
 * and is validated with it: anything else is a 502, a slow provider a 504, and nothing is stored.
 */

export interface OpenAiSettings {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  timeoutMs: number;
}

/** Longest side of the PNG sent: vision models downscale beyond this anyway. */
const SEND_MAX_PX = 1536;
/** Upper bound on the provider's answer; a valid analysis is a few kilobytes. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export const SCHEMA_NAME = 'medical_image_analysis';

/** The contract's findings schema as JSON Schema, without the dialect marker OpenAI does not take. */
export function responseJsonSchema(): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(AnalysisFindingsSchema) as Record<string, unknown>;
  return schema;
}

export const SYSTEM_PROMPT = [
  'You assist clinicians by describing a single medical image.',
  'Answer only with JSON that follows the given schema.',
  'Describe what is visible; give a differential diagnosis with likelihoods from 0 to 1 only when the image supports it, otherwise an empty list.',
  'Treatment and follow-up are considerations for a clinician, never instructions to a patient.',
  'Put image-quality problems and the limits of an analysis from one image into warnings.',
  'Use plain text without Markdown.',
].join(' ');

/** The one text about the image: de-identified by construction (no names, ids, dates or free text). */
export function userPrompt(m: AnalysisMetadata): string {
  const facts = [
    m.format === 'dicom' ? `Modality: ${m.modality ?? 'not recorded'}` : `Format: ${m.format.toUpperCase()} picture`,
    m.bodyPart ? `Body part: ${m.bodyPart}` : null,
    `Size: ${m.columns} x ${m.rows} pixels${m.frames > 1 ? `, first of ${m.frames} frames` : ''}`,
  ].filter(Boolean);
  return `Analyse this medical image. ${facts.join('. ')}.`;
}

const ChatAnswerSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
        }),
      }),
    )
    .min(1),
});

const badAnswer = () => new AppError(502, 'analysis_bad_answer', AnalysisTexts.badProviderAnswer);

export function createOpenAiProvider(settings: OpenAiSettings, log: Logger): AnalysisProvider {
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const schema = responseJsonSchema();

  async function request(body: unknown): Promise<string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
    const signal = AbortSignal.timeout(settings.timeoutMs);
    try {
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal, redirect: 'error' });
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        log.warn({ status: res.status }, 'analysis provider answered with an error status');
        throw new AppError(502, 'analysis_provider_failed', AnalysisTexts.providerFailed(res.status));
      }
      const text = await res.text();
      if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) {
        log.warn({ bytes: Buffer.byteLength(text) }, 'analysis provider answer too large');
        throw badAnswer();
      }
      return text;
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (signal.aborted) {
        log.warn({ timeoutMs: settings.timeoutMs }, 'analysis provider timed out');
        throw new AppError(504, 'analysis_timeout', AnalysisTexts.timeout(Math.round(settings.timeoutMs / 1000)));
      }
      log.warn({ problem: loggedMessage(err) }, 'analysis provider unreachable');
      throw new AppError(502, 'analysis_provider_unreachable', AnalysisTexts.providerUnreachable);
    }
  }

  function parse(text: string): AnalysisFindings {
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch {
      log.warn('analysis provider answer is not JSON');
      throw badAnswer();
    }
    const chat = ChatAnswerSchema.safeParse(envelope);
    if (!chat.success) {
      log.warn('analysis provider answer is not a chat completion');
      throw badAnswer();
    }
    const message = chat.data.choices[0]!.message;
    if (message.refusal) throw new AppError(502, 'analysis_refused', AnalysisTexts.providerRefused);
    if (!message.content) throw badAnswer();
    let content: unknown;
    try {
      content = JSON.parse(message.content);
    } catch {
      log.warn('analysis provider content is not JSON');
      throw badAnswer();
    }
    const findings = AnalysisFindingsSchema.safeParse(content);
    if (!findings.success) {
      // Paths and codes only: the values may be clinical text.
      log.warn(
        { issues: findings.error.issues.map((i) => `${i.path.join('.')}: ${i.code}`) },
        'analysis answer violates the schema',
      );
      throw badAnswer();
    }
    return findings.data;
  }

  return {
    name: 'openai',
    model: settings.model,
    async analyze(input: AnalysisInput) {
      // Re-encoding drops every embedded text chunk (EXIF, PNG tEXt) along with any PHI in it.
      const png = await sharpOf(input)
        .rotate()
        .resize(SEND_MAX_PX, SEND_MAX_PX, { fit: 'inside', withoutEnlargement: true })
        .png()
        .toBuffer();
      const body = {
        model: settings.model,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          {
            role: 'user',
            content: [
              { type: 'text', text: userPrompt(input.metadata) },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
            ],
          },
        ],
        response_format: { type: 'json_schema', json_schema: { name: SCHEMA_NAME, strict: true, schema } },
      };
      return parse(await request(body));
    },
  };
}

import {
  AnalysisHistoryQuerySchema,
  AnalysisImageParamsSchema,
  AnalysisResultSchema,
  AnalysisSchema,
  AnalysisTexts,
  envelope,
  pagedEnvelope,
} from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok, paged } from '../../http/envelope.ts';
import { perSessionRateLimit } from '../../http/session-rate-limit.ts';
import { routeDocs } from '../../http/route-schema.ts';

const docs = routeDocs('analysis');

// A run may call a paid provider and decodes a whole image: bound it per session. A first GET runs too,
// but mostly returns the stored result, so it gets more room.
const RUNS_PER_MINUTE = 10;
const READS_PER_MINUTE = 60;
const who =
  'Needs analysis:run and the right to see the image content (uploader, admin, verified patient or recipient); anyone else gets 404.';

/** AI analysis of one image (`docs/architecture.md` › AI analysis). Registered under /api/analysis. */
export function analysisRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { analysis } = ctx.services;
  const runLimit = perSessionRateLimit('analysis-run', RUNS_PER_MINUTE);
  const readLimit = perSessionRateLimit('analysis-read', READS_PER_MINUTE);
  return async (app) => {
    app.get(
      '/:imageId',
      {
        config: readLimit,
        preHandler: ctx.hooks.requirePermission('analysis:run'),
        schema: docs.signedIn([400, 401, 403, 404, 429, 502, 504], {
          summary: 'The newest stored analysis of an image, or a first run of the configured provider',
          description: `${who} PDF and non-image DICOM: 400. Provider failures: 502 (bad answer, error status), 504 (timeout); nothing is stored then.`,
          params: AnalysisImageParamsSchema,
          response: { 200: envelope(AnalysisResultSchema) },
        }),
      },
      async (request) => {
        const result = await analysis.getAnalysis(actorOf(request), request.params.imageId);
        return ok(result, result.reused ? AnalysisTexts.reused : AnalysisTexts.ran);
      },
    );

    app.post(
      '/:imageId/run',
      {
        config: runLimit,
        preHandler: ctx.hooks.requirePermission('analysis:run'),
        schema: docs.signedIn([400, 401, 403, 404, 429, 502, 504], {
          summary: 'Re-run: a fresh analysis with the configured provider, kept beside the earlier ones',
          description: who,
          params: AnalysisImageParamsSchema,
          response: { 201: envelope(AnalysisResultSchema) },
        }),
      },
      async (request, reply) => {
        const result = await analysis.rerun(actorOf(request), request.params.imageId);
        return reply.status(201).send(ok(result, AnalysisTexts.ran));
      },
    );

    app.get(
      '/:imageId/history',
      {
        preHandler: ctx.hooks.requirePermission('analysis:run'),
        schema: docs.signedIn([400, 401, 403, 404], {
          summary: 'Every stored analysis of an image, newest first, with time and provider',
          description: who,
          params: AnalysisImageParamsSchema,
          querystring: AnalysisHistoryQuerySchema,
          response: { 200: pagedEnvelope(AnalysisSchema) },
        }),
      },
      async (request) => {
        const { items, pagination } = await analysis.history(actorOf(request), request.params.imageId, request.query);
        return paged(items, pagination);
      },
    );
  };
}

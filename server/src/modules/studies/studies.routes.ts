import {
  ListStudiesQuerySchema,
  StudyDetailSchema,
  StudyMessages,
  StudyParamsSchema,
  StudyShareBodySchema,
  StudyShareParamsSchema,
  StudyShareSchema,
  StudySummarySchema,
  envelope,
  pagedEnvelope,
} from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok, paged } from '../../http/envelope.ts';
import { routeDocs } from '../../http/route-schema.ts';

const docs = routeDocs('studies');

/** Study cards, the study page and study shares (`docs/architecture.md` › Studies and DICOMweb). Registered under /api/studies. */
export function studiesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { studies } = ctx.services;
  return async (app) => {
    app.get(
      '/',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401], {
          summary: 'DICOM studies I see, one card per study (and per share that brought one), newest first',
          description:
            'A provider: own uploads and studies shared with them; a patient: studies shared with them; an admin: every study. Single files stay in the image lists (kind=files).',
          querystring: ListStudiesQuerySchema,
          response: { 200: pagedEnvelope(StudySummarySchema) },
        }),
      },
      async (request) => {
        const { items, pagination } = await studies.list(actorOf(request), request.query);
        return paged(items, pagination);
      },
    );

    app.get(
      '/:studyUid',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 404], {
          summary: 'A study page: its series and the instances whose content I may see',
          params: StudyParamsSchema,
          response: { 200: envelope(StudyDetailSchema) },
        }),
      },
      async (request) => ok(await studies.study(actorOf(request), request.params.studyUid)),
    );

    app.post(
      '/:studyUid/share',
      {
        preHandler: ctx.hooks.requirePermission('image:share'),
        schema: docs.signedIn([400, 401, 403, 404, 409, 503], {
          summary: 'Share a whole study: mails one sharing id and one 6-digit code to the recipient',
          params: StudyParamsSchema,
          body: StudyShareBodySchema,
          response: { 201: envelope(StudyShareSchema) },
        }),
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(ok(await studies.share(actorOf(request), request.params.studyUid, request.body), StudyMessages.shared)),
    );

    app.get(
      '/:studyUid/shares',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 403, 404], {
          summary: 'The study shares of a study (its uploader or an admin); never codes',
          params: StudyParamsSchema,
          response: { 200: envelope(z.array(StudyShareSchema)) },
        }),
      },
      async (request) => ok(await studies.shares(actorOf(request), request.params.studyUid)),
    );

    app.delete(
      '/:studyUid/shares/:id',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 403, 404], {
          summary: 'Revoke a study share (its uploader or an admin): every instance is hidden at once',
          params: StudyShareParamsSchema,
          response: { 200: envelope(StudyShareSchema) },
        }),
      },
      async (request) =>
        ok(
          await studies.revokeShare(actorOf(request), request.params.studyUid, request.params.id),
          StudyMessages.revoked,
        ),
    );
  };
}

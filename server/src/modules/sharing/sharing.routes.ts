import {
  IdParamSchema,
  ShareRequestBodySchema,
  ShareSchema,
  ShareVerifyBodySchema,
  ShareVerifyResponseDataSchema,
  SharingMessages,
  StudyMessages,
  envelope,
} from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok } from '../../http/envelope.ts';
import { routeDocs } from '../../http/route-schema.ts';

const docs = routeDocs('sharing');

/** Share, verify, list and revoke (`docs/architecture.md` › Sharing). Registered under /api/sharing. */
export function sharingRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { sharing } = ctx.services;
  const limited = { rateLimit: { max: ctx.config.rateLimits.authPerMinute, timeWindow: '1 minute' } };
  return async (app) => {
    app.post(
      '/request',
      {
        preHandler: ctx.hooks.requirePermission('image:share'),
        schema: docs.signedIn([400, 401, 403, 404, 409, 503], {
          summary: 'Share an image: mails the sharing id and a 6-digit code to the recipient',
          body: ShareRequestBodySchema,
          response: { 201: envelope(ShareSchema) },
        }),
      },
      async (request, reply) =>
        reply.status(201).send(ok(await sharing.shareImage(actorOf(request), request.body), SharingMessages.shared)),
    );

    app.post(
      '/verify',
      {
        config: limited,
        preHandler: ctx.hooks.requirePermission('image:verify'),
        schema: docs.signedIn([400, 401, 403, 404, 429], {
          summary: 'Unlock a share with its code (recipient only; 5 wrong codes lock it)',
          body: ShareVerifyBodySchema,
          response: { 200: envelope(ShareVerifyResponseDataSchema) },
        }),
      },
      async (request) => {
        const verified = await sharing.verifyShare(actorOf(request), request.body);
        return ok(verified, verified.studyUid ? StudyMessages.verified : SharingMessages.verified);
      },
    );

    app.get(
      '/image/:id',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 403, 404], {
          summary: 'The shares of an image (uploader or admin); never codes',
          params: IdParamSchema,
          response: { 200: envelope(z.array(ShareSchema)) },
        }),
      },
      async (request) => ok(await sharing.listShares(actorOf(request), request.params.id)),
    );

    app.delete(
      '/:id',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 403, 404], {
          summary: 'Revoke a share (uploader or admin); the content is hidden at once',
          params: IdParamSchema,
          response: { 200: envelope(ShareSchema) },
        }),
      },
      async (request) => ok(await sharing.revokeShare(actorOf(request), request.params.id), SharingMessages.revoked),
    );
  };
}

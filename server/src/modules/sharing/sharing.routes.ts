import {
  ErrorResponseSchema,
  IdParamSchema,
  ShareRequestBodySchema,
  ShareSchema,
  ShareVerifyBodySchema,
  ShareVerifyResponseDataSchema,
  SharingMessages,
  envelope,
} from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok } from '../../http/envelope.ts';

const errors = {
  400: ErrorResponseSchema,
  401: ErrorResponseSchema,
  403: ErrorResponseSchema,
  404: ErrorResponseSchema,
};
const bearer = [{ bearer: [] }];

/** Share, verify, list and revoke (DESIGN §8). Registered under /api/sharing. */
export function sharingRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { sharing } = ctx.services;
  const limited = { rateLimit: { max: ctx.config.rateLimits.authPerMinute, timeWindow: '1 minute' } };
  return async (app) => {
    app.post(
      '/request',
      {
        preHandler: ctx.hooks.requirePermission('image:share'),
        schema: {
          tags: ['sharing'],
          summary: 'Share an image: mails the sharing id and a 6-digit code to the recipient',
          security: bearer,
          body: ShareRequestBodySchema,
          response: { 201: envelope(ShareSchema), ...errors, 409: ErrorResponseSchema, 503: ErrorResponseSchema },
        },
      },
      async (request, reply) =>
        reply.status(201).send(ok(await sharing.shareImage(actorOf(request), request.body), SharingMessages.shared)),
    );

    app.post(
      '/verify',
      {
        config: limited,
        preHandler: ctx.hooks.requirePermission('image:verify'),
        schema: {
          tags: ['sharing'],
          summary: 'Unlock a share with its code (recipient only; 5 wrong codes lock it)',
          security: bearer,
          body: ShareVerifyBodySchema,
          response: { 200: envelope(ShareVerifyResponseDataSchema), ...errors, 429: ErrorResponseSchema },
        },
      },
      async (request) => ok(await sharing.verifyShare(actorOf(request), request.body), SharingMessages.verified),
    );

    app.get(
      '/image/:id',
      {
        preHandler: ctx.hooks.authenticate,
        schema: {
          tags: ['sharing'],
          summary: 'The shares of an image (uploader or admin); never codes',
          security: bearer,
          params: IdParamSchema,
          response: { 200: envelope(z.array(ShareSchema)), ...errors },
        },
      },
      async (request) => ok(await sharing.listShares(actorOf(request), request.params.id)),
    );

    app.delete(
      '/:id',
      {
        preHandler: ctx.hooks.authenticate,
        schema: {
          tags: ['sharing'],
          summary: 'Revoke a share (uploader or admin); the content is hidden at once',
          security: bearer,
          params: IdParamSchema,
          response: { 200: envelope(ShareSchema), ...errors },
        },
      },
      async (request) => ok(await sharing.revokeShare(actorOf(request), request.params.id), SharingMessages.revoked),
    );
  };
}

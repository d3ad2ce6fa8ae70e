import {
  ExternalLinkBodySchema,
  ExternalLinkStatusSchema,
  ExternalRedeemBodySchema,
  ExternalShareCreateBodySchema,
  ExternalShareIssuedSchema,
  ExternalShareListQuerySchema,
  ExternalShareListSchema,
  ExternalShareMessages,
  ExternalShareSchema,
  ExternalViewSchema,
  IdParamSchema,
  envelope,
} from '@medshare/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { sendStoredContent } from '../../http/content-headers.ts';
import { ok } from '../../http/envelope.ts';
import { routeDocs } from '../../http/route-schema.ts';
import { LINK_COOKIE, LINK_COOKIE_PATH, linkCookieOf } from './link-credential.ts';

const docs = routeDocs('external-shares');

/** The sharer's side (`docs/architecture.md` › Sharing with someone without an account). Under /api/external-shares. */
export function externalSharesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { externalShares } = ctx.services;
  return async (app) => {
    app.post(
      '/',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 403, 404, 409, 413, 503], {
          summary: 'Share an image or a study by link: mails the link, answers the 6-digit code once',
          body: ExternalShareCreateBodySchema,
          response: { 201: envelope(ExternalShareIssuedSchema) },
        }),
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(ok(await externalShares.create(actorOf(request), request.body), ExternalShareMessages.created)),
    );

    app.get(
      '/',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 403], {
          summary:
            'The caller’s external shares, or with scope=all every user’s (image:view_all), newest first (never tokens or codes)',
          querystring: ExternalShareListQuerySchema,
          response: { 200: envelope(ExternalShareListSchema) },
        }),
      },
      async (request) => ok(await externalShares.list(actorOf(request), request.query.scope)),
    );

    app.delete(
      '/:id',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 404], {
          summary: 'Revoke an external share (its sharer, or image:view_all): the link stops on its next request',
          params: IdParamSchema,
          response: { 200: envelope(ExternalShareSchema) },
        }),
      },
      async (request) =>
        ok(await externalShares.revoke(actorOf(request), request.params.id), ExternalShareMessages.revoked),
    );

    app.post(
      '/:id/reissue',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 404, 409, 503], {
          summary: 'A new link and code (the old ones stop); unlocks a locked share',
          params: IdParamSchema,
          response: { 200: envelope(ExternalShareIssuedSchema) },
        }),
      },
      async (request) =>
        ok(await externalShares.reissue(actorOf(request), request.params.id), ExternalShareMessages.reissued),
    );
  };
}

/**
 * The link holder's side, without an account: under /api/external. The token comes in the body (the
 * page reads it from the URL fragment), the credential in an httpOnly cookie scoped to this prefix.
 */
export function externalLinkRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { externalShares } = ctx.services;
  const limited = { rateLimit: { max: ctx.config.rateLimits.authPerMinute, timeWindow: '1 minute' } };
  const secure = ctx.config.publicUrl?.startsWith('https:') ? '; Secure' : '';
  const credentialOf = (request: FastifyRequest) => linkCookieOf(request.headers.cookie);
  const setCookie = (reply: FastifyReply, value: string, maxAgeSeconds: number) =>
    reply.header(
      'set-cookie',
      `${LINK_COOKIE}=${value}; Path=${LINK_COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`,
    );
  const holderDocs = { 401: 'no credential', 404: 'not in this share', 410: 'revoked or expired' };

  return async (app) => {
    // A page of someone else's medical data: no referrer leaves it, nothing is cached.
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('referrer-policy', 'no-referrer');
      return payload;
    });

    app.post(
      '/link',
      {
        config: limited,
        schema: docs.open([400, 404, 429], {
          summary: 'What a link says before its code: active, locked, expired or revoked, and its end',
          body: ExternalLinkBodySchema,
          response: { 200: envelope(ExternalLinkStatusSchema) },
        }),
      },
      async (request) => ok(await externalShares.linkStatus(request.body.token)),
    );

    app.post(
      '/session',
      {
        config: limited,
        schema: docs.open([400, 404, 429], {
          summary: 'The link’s token and its code: sets a credential for this share alone (5 wrong codes lock it)',
          description: '410 when the share was revoked or has expired.',
          body: ExternalRedeemBodySchema,
          response: { 200: envelope(ExternalViewSchema) },
        }),
      },
      async (request, reply) => {
        const session = await externalShares.redeem(request.body.token, request.body.code, request.ip);
        const seconds = Math.max(1, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000));
        setCookie(reply, session.credential, seconds);
        return ok(session.view);
      },
    );

    app.delete(
      '/session',
      {
        schema: docs.open([], {
          summary: 'Forget the credential in this browser',
          response: { 200: envelope(z.null()) },
        }),
      },
      async (_request, reply) => {
        setCookie(reply, '', 0);
        return ok(null);
      },
    );

    app.get(
      '/view',
      {
        schema: docs.open([401, 429], {
          summary: 'The shared images and the share’s terms (link credential)',
          description: `401 ${holderDocs[401]}; 410 ${holderDocs[410]}.`,
          response: { 200: envelope(ExternalViewSchema) },
        }),
      },
      async (request) => ok(await externalShares.view(credentialOf(request), request.ip)),
    );

    for (const [variant, download] of [
      ['content', false],
      ['thumbnail', false],
      ['download', true],
    ] as const) {
      app.get(
        `/images/:id/${variant}`,
        {
          schema: docs.open([400, 401, 403, 404, 429], {
            summary:
              variant === 'download'
                ? 'A shared file as an attachment (403 for a view-only share)'
                : `A shared image’s ${variant === 'content' ? 'bytes, inline' : 'thumbnail'} (link credential)`,
            description: `401 ${holderDocs[401]}; 404 ${holderDocs[404]}; 410 ${holderDocs[410]}.`,
            params: IdParamSchema,
            response: { 200: z.unknown().describe('The file bytes, streamed') },
          }),
        },
        async (request, reply) => {
          const answer = await externalShares.open(
            credentialOf(request),
            request.params.id,
            variant === 'thumbnail' ? 'thumbnail' : 'content',
            download,
            request.ip,
          );
          return sendStoredContent(reply, answer);
        },
      );
    }
  };
}

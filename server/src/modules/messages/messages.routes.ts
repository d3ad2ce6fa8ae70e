import {
  ChatListEntrySchema,
  ChatListQuerySchema,
  ChatPartnerParamSchema,
  ChatQuerySchema,
  ChatResponseSchema,
  MarkReadResponseDataSchema,
  MessageIdTextSchema,
  MessageRecipientSchema,
  MessageSchema,
  MessageTexts,
  MessageUsersQuerySchema,
  SendMessageBodySchema,
  StreamQuerySchema,
  envelope,
  pagedEnvelope,
} from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { tooManyRequests } from '../../errors.ts';
import { perSessionRateLimit } from '../../http/session-rate-limit.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok, paged } from '../../http/envelope.ts';
import { routeDocs } from '../../http/route-schema.ts';

const docs = routeDocs('messages');

const SENDS_PER_MINUTE = 120;

export function messagesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { messages } = ctx.services;
  const { hub } = ctx.realtime;
  const allowed = ctx.hooks.requirePermission('messages:send');
  const sendLimit = perSessionRateLimit('msg', SENDS_PER_MINUTE);

  return async (app) => {
    // Open streams are long-lived responses: end them first, or closing the server would wait on them.
    app.addHook('preClose', async () => hub.closeAll());

    app.get(
      '/chat-list',
      {
        preHandler: allowed,
        schema: docs.signedIn([400, 401, 403, 404, 429], {
          summary: 'One entry per conversation partner, most recent first, with unread counts',
          querystring: ChatListQuerySchema,
          response: { 200: pagedEnvelope(ChatListEntrySchema) },
        }),
      },
      async (request) => {
        const { items, pagination } = await messages.listChats(
          actorOf(request),
          request.query.page,
          request.query.limit,
        );
        return paged(items, pagination);
      },
    );

    app.get(
      '/users',
      {
        preHandler: allowed,
        schema: docs.signedIn([400, 401, 403, 404, 429], {
          summary: 'People the caller may write to, by name or e-mail',
          querystring: MessageUsersQuerySchema,
          response: { 200: pagedEnvelope(MessageRecipientSchema) },
        }),
      },
      async (request) => {
        const { items, pagination } = await messages.listRecipients(actorOf(request), request.query);
        return paged(items, pagination);
      },
    );

    app.get(
      '/chat/:userId',
      {
        preHandler: allowed,
        schema: docs.signedIn([400, 401, 403, 404, 429], {
          summary: 'The thread with one user: newest page first, `before` loads older (keyset)',
          params: ChatPartnerParamSchema,
          querystring: ChatQuerySchema,
          response: { 200: ChatResponseSchema },
        }),
      },
      async (request) => {
        const { messages: data, cursor } = await messages.getChat(
          actorOf(request),
          request.params.userId,
          request.query,
        );
        return { success: true as const, data, cursor };
      },
    );

    app.post(
      '/chat/:userId/read',
      {
        preHandler: allowed,
        schema: docs.signedIn([400, 401, 403, 404, 429], {
          summary: 'Mark the messages from this user read; answers the unread counts left',
          params: ChatPartnerParamSchema,
          response: { 200: envelope(MarkReadResponseDataSchema) },
        }),
      },
      async (request) =>
        ok(await messages.markChatRead(actorOf(request), request.params.userId), MessageTexts.markedRead),
    );

    app.post(
      '/send',
      {
        preHandler: allowed,
        config: sendLimit,
        schema: docs.signedIn([400, 401, 403, 404, 429], {
          summary: 'Send a direct message (1..5000 characters after trimming)',
          body: SendMessageBodySchema,
          response: { 201: envelope(MessageSchema) },
        }),
      },
      async (request, reply) =>
        reply.status(201).send(ok(await messages.sendMessage(actorOf(request), request.body), MessageTexts.sent)),
    );

    app.get(
      '/stream',
      {
        preHandler: allowed,
        schema: docs.signedIn([400, 401, 403, 404, 429], {
          summary:
            'Server-Sent Events: live messages and read receipts; Last-Event-ID (or ?since=) replays what was missed',
          querystring: StreamQuerySchema,
          headers: z.object({ 'last-event-id': MessageIdTextSchema.optional() }),
          response: {},
        }),
      },
      async (request, reply) => {
        const actor = actorOf(request);
        const slot = hub.reserve(actor.userId);
        if (!slot) throw tooManyRequests(MessageTexts.tooManyStreams, 30);
        let start: number;
        try {
          start = await messages.streamStart(actor, request.headers['last-event-id'] ?? request.query.since);
        } catch (err) {
          slot.release();
          throw err;
        }
        reply.hijack();
        hub.open(
          reply.raw,
          reply.getHeaders(),
          {
            userId: actor.userId,
            after: (afterId, limit) => messages.messagesAfter(actor, afterId, limit),
            endReason: () => messages.streamEndReason(actor),
          },
          start,
          slot,
        );
      },
    );
  };
}

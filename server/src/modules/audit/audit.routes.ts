import {
  AuditActionListSchema,
  AuditLogsResponseSchema,
  ListAuditLogsQuerySchema,
  envelope,
} from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok } from '../../http/envelope.ts';
import { routeDocs } from '../../http/route-schema.ts';

const docs = routeDocs('audit');

/** The audit trail, read-only: audit:read_all sees every row, audit:read_own only rows one acted in. */
export function auditRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { audit } = ctx.services;
  return async (app) => {
    app.get(
      '/logs',
      {
        onRequest: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 403], {
          summary:
            'Audit rows, newest first; search by user, filter by action and date range (audit:read_all or audit:read_own)',
          querystring: ListAuditLogsQuerySchema,
          response: { 200: AuditLogsResponseSchema },
        }),
      },
      async (request) => {
        const { items, pagination } = await audit.listLogs(actorOf(request), request.query);
        // Not paged(): the audit pagination carries totalItemsCapped.
        return { success: true as const, data: items, pagination };
      },
    );

    app.get(
      '/actions',
      {
        onRequest: ctx.hooks.authenticate,
        schema: docs.signedIn([401, 403], {
          summary: 'Distinct action types for the filter (the caller’s own with audit:read_own)',
          response: { 200: envelope(AuditActionListSchema) },
        }),
      },
      async (request) => ok(await audit.listActions(actorOf(request))),
    );
  };
}

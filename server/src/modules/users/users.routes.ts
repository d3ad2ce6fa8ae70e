import {
  AdminSummarySchema,
  DashboardStatsSchema,
  DeleteAccountBodySchema,
  IdParamSchema,
  ListUsersPagedQuerySchema,
  MessageOnlyResponseSchema,
  ToggleUserStatusBodySchema,
  UpdateProfileBodySchema,
  UserListItemSchema,
  UserMessages,
  UserProfileViewSchema,
  UserSchema,
  envelope,
  pagedEnvelope,
} from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok, paged } from '../../http/envelope.ts';
import { routeDocs } from '../../http/route-schema.ts';

const docs = routeDocs('users');

export function usersRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { users } = ctx.services;
  return async (app) => {
    app.get(
      '/profile',
      {
        onRequest: ctx.hooks.authenticate,
        schema: docs.signedIn([401], {
          summary: 'The signed-in user',
          response: { 200: envelope(UserSchema) },
        }),
      },
      async (request) => ok(await users.getProfile(actorOf(request))),
    );

    app.put(
      '/profile',
      {
        onRequest: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401], {
          summary: 'Edit one’s own profile; empty strings clear a field; the other role’s clinical fields are refused',
          body: UpdateProfileBodySchema,
          response: { 200: envelope(UserSchema) },
        }),
      },
      async (request) => ok(await users.updateProfile(actorOf(request), request.body), UserMessages.profileUpdated),
    );

    app.delete(
      '/profile',
      {
        onRequest: ctx.hooks.authenticate,
        config: { rateLimit: { max: ctx.config.rateLimits.authPerMinute, timeWindow: '1 minute' } },
        schema: docs.signedIn([400, 401, 409, 429], {
          summary: 'Delete one’s own account (password required): personal data scrubbed, sessions ended',
          body: DeleteAccountBodySchema,
          response: { 200: MessageOnlyResponseSchema },
        }),
      },
      async (request) => {
        await users.deleteOwnAccount(actorOf(request), request.body.password);
        return { success: true as const, message: UserMessages.accountDeleted, data: null };
      },
    );

    app.get(
      '/stats',
      {
        onRequest: ctx.hooks.authenticate,
        schema: docs.signedIn([401], {
          summary: 'Dashboard cards: users the viewer may see, images, shared images',
          response: { 200: envelope(DashboardStatsSchema) },
        }),
      },
      async (request) => ok(await users.stats(actorOf(request))),
    );

    app.get(
      '/',
      {
        onRequest: ctx.hooks.requirePermission('users:read'),
        schema: docs.signedIn([400, 401, 403], {
          summary: 'The dashboard users table: paged, sorted, searched by name/e-mail/username prefix (users:read)',
          querystring: ListUsersPagedQuerySchema,
          response: { 200: pagedEnvelope(UserListItemSchema) },
        }),
      },
      async (request) => {
        const { items, pagination } = await users.listUsers(actorOf(request), request.query);
        return paged(items, pagination);
      },
    );

    app.get(
      '/:id',
      {
        onRequest: ctx.hooks.authenticate,
        schema: docs.signedIn([400, 401, 404], {
          summary: 'A user’s profile in the view the caller may have (full, care or public); 404 when not visible',
          params: IdParamSchema,
          response: { 200: envelope(UserProfileViewSchema) },
        }),
      },
      async (request) => ok(await users.getUser(actorOf(request), request.params.id)),
    );

    app.delete(
      '/:id',
      {
        onRequest: ctx.hooks.requirePermission('users:manage'),
        schema: docs.signedIn([400, 401, 403, 404, 409], {
          summary:
            'Delete a user (admin): personal data scrubbed, sessions ended; not oneself, not the last active admin',
          params: IdParamSchema,
          response: { 200: MessageOnlyResponseSchema },
        }),
      },
      async (request) => {
        await users.deleteUser(actorOf(request), request.params.id);
        return { success: true as const, message: UserMessages.userDeleted, data: null };
      },
    );

    app.put(
      '/toggleUserStatus/:id',
      {
        onRequest: ctx.hooks.requirePermission('users:manage'),
        schema: docs.signedIn([401, 403, 404, 409], {
          summary: 'Approve a pending provider, activate or deactivate a user (admin)',
          params: IdParamSchema,
          // No body (null to Fastify): a toggle from the state read.
          body: ToggleUserStatusBodySchema.nullish(),
          response: { 200: envelope(UserSchema) },
        }),
      },
      async (request) => {
        const user = await users.toggleUserStatus(actorOf(request), request.params.id, request.body ?? undefined);
        return ok(user, user.active ? 'User activated' : 'User deactivated');
      },
    );
  };
}

/** Admin dashboard data under /api/admin. */
export function adminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { users } = ctx.services;
  return async (app) => {
    app.get(
      '/summary',
      {
        onRequest: ctx.hooks.requirePermission('users:manage'),
        schema: docs.signedIn([401, 403], {
          tags: ['admin'],
          summary: 'Pending provider approvals, users by role, uploads per day for the last 14 days (admin)',
          response: { 200: envelope(AdminSummarySchema) },
        }),
      },
      async (request) => ok(await users.adminSummary(actorOf(request))),
    );
  };
}

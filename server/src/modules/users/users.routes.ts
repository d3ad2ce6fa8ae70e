import {
  AdminSummarySchema,
  DashboardStatsSchema,
  DeleteAccountBodySchema,
  ErrorResponseSchema,
  IdParamSchema,
  ListUsersPagedQuerySchema,
  MessageOnlyResponseSchema,
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

const e = ErrorResponseSchema;
const bearer = [{ bearer: [] }];

export function usersRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { users } = ctx.services;
  return async (app) => {
    app.get(
      '/profile',
      {
        onRequest: ctx.hooks.authenticate,
        schema: {
          tags: ['users'],
          summary: 'The signed-in user',
          security: bearer,
          response: { 200: envelope(UserSchema), 401: e },
        },
      },
      async (request) => ok(await users.getProfile(actorOf(request))),
    );

    app.put(
      '/profile',
      {
        onRequest: ctx.hooks.authenticate,
        schema: {
          tags: ['users'],
          summary: 'Edit one’s own profile; empty strings clear a field; the other role’s clinical fields are refused',
          security: bearer,
          body: UpdateProfileBodySchema,
          response: { 200: envelope(UserSchema), 400: e, 401: e },
        },
      },
      async (request) => ok(await users.updateProfile(actorOf(request), request.body), UserMessages.profileUpdated),
    );

    app.delete(
      '/profile',
      {
        onRequest: ctx.hooks.authenticate,
        config: { rateLimit: { max: ctx.config.rateLimits.authPerMinute, timeWindow: '1 minute' } },
        schema: {
          tags: ['users'],
          summary: 'Delete one’s own account (password required): personal data scrubbed, sessions ended',
          security: bearer,
          body: DeleteAccountBodySchema,
          response: { 200: MessageOnlyResponseSchema, 400: e, 401: e, 409: e, 429: e },
        },
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
        schema: {
          tags: ['users'],
          summary: 'Dashboard cards: users the viewer may see, images, shared images',
          security: bearer,
          response: { 200: envelope(DashboardStatsSchema), 401: e },
        },
      },
      async (request) => ok(await users.stats(actorOf(request))),
    );

    app.get(
      '/',
      {
        onRequest: ctx.hooks.requirePermission('users:read'),
        schema: {
          tags: ['users'],
          summary: 'The dashboard users table: paged, sorted, searched by name/e-mail/username prefix (users:read)',
          security: bearer,
          querystring: ListUsersPagedQuerySchema,
          response: { 200: pagedEnvelope(UserListItemSchema), 400: e, 401: e, 403: e },
        },
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
        schema: {
          tags: ['users'],
          summary: 'A user’s profile in the view the caller may have (full, care or public); 404 when not visible',
          security: bearer,
          params: IdParamSchema,
          response: { 200: envelope(UserProfileViewSchema), 400: e, 401: e, 404: e },
        },
      },
      async (request) => ok(await users.getUser(actorOf(request), request.params.id)),
    );

    app.delete(
      '/:id',
      {
        onRequest: ctx.hooks.requirePermission('users:manage'),
        schema: {
          tags: ['users'],
          summary:
            'Delete a user (admin): personal data scrubbed, sessions ended; not oneself, not the last active admin',
          security: bearer,
          params: IdParamSchema,
          response: { 200: MessageOnlyResponseSchema, 400: e, 401: e, 403: e, 404: e, 409: e },
        },
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
        schema: {
          tags: ['users'],
          summary: 'Approve a pending provider, activate or deactivate a user (admin)',
          security: bearer,
          params: IdParamSchema,
          response: { 200: envelope(UserSchema), 401: e, 403: e, 404: e, 409: e },
        },
      },
      async (request) => {
        const user = await users.toggleUserStatus(actorOf(request), request.params.id);
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
        schema: {
          tags: ['admin'],
          summary: 'Pending provider approvals, users by role, uploads per day for the last 14 days (admin)',
          security: bearer,
          response: { 200: envelope(AdminSummarySchema), 401: e, 403: e },
        },
      },
      async (request) => ok(await users.adminSummary(actorOf(request))),
    );
  };
}

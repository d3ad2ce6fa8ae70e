import { ErrorResponseSchema, PermissionListSchema, RoleListSchema, envelope } from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok } from '../../http/envelope.ts';

export function rolesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { roles } = ctx.services;
  const e = ErrorResponseSchema;
  return async (app) => {
    app.get(
      '/',
      {
        onRequest: ctx.hooks.requirePermission('roles:read'),
        schema: {
          tags: ['roles'],
          summary: 'Roles with their permissions (roles:read)',
          security: [{ bearer: [] }],
          response: { 200: envelope(RoleListSchema), 401: e, 403: e },
        },
      },
      async (request) => ok(await roles.listRoles(actorOf(request))),
    );

    app.get(
      '/permissions',
      {
        onRequest: ctx.hooks.requirePermission('roles:read'),
        schema: {
          tags: ['roles'],
          summary: 'Permissions with the roles holding each (roles:read)',
          security: [{ bearer: [] }],
          response: { 200: envelope(PermissionListSchema), 401: e, 403: e },
        },
      },
      async (request) => ok(await roles.listPermissions(actorOf(request))),
    );
  };
}

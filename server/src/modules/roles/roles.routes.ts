import { PermissionListSchema, RoleListSchema, envelope } from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok } from '../../http/envelope.ts';
import { routeDocs } from '../../http/route-schema.ts';

const docs = routeDocs('roles');

export function rolesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { roles } = ctx.services;
  return async (app) => {
    app.get(
      '/',
      {
        onRequest: ctx.hooks.requirePermission('roles:read'),
        schema: docs.signedIn([401, 403], {
          summary: 'Roles with their permissions (roles:read)',
          response: { 200: envelope(RoleListSchema) },
        }),
      },
      async (request) => ok(await roles.listRoles(actorOf(request))),
    );

    app.get(
      '/permissions',
      {
        onRequest: ctx.hooks.requirePermission('roles:read'),
        schema: docs.signedIn([401, 403], {
          summary: 'Permissions with the roles holding each (roles:read)',
          response: { 200: envelope(PermissionListSchema) },
        }),
      },
      async (request) => ok(await roles.listPermissions(actorOf(request))),
    );
  };
}

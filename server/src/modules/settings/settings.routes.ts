import {
  AppSettingListSchema,
  AppSettingSchema,
  CreateSettingBodySchema,
  DeleteSettingBodySchema,
  IdParamSchema,
  MessageOnlyResponseSchema,
  PublicSettingsSchema,
  SettingMessages,
  UpdateSettingBodySchema,
  envelope,
} from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok } from '../../http/envelope.ts';
import { routeDocs } from '../../http/route-schema.ts';

const docs = routeDocs('settings');

/**
 * Application settings under /api/appsetting (the paths of `docs/product.md` › Calls); settings:manage except
 * /public.
 */
export function settingsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { settings } = ctx.services;
  const manage = ctx.hooks.requirePermission('settings:manage');
  return async (app) => {
    app.get(
      '/public',
      {
        schema: docs.open([], {
          summary: 'Locale, time zone and upload limit for the web app (no sign-in needed)',
          response: { 200: envelope(PublicSettingsSchema) },
        }),
      },
      async () => ok(await settings.publicSettings()),
    );

    app.get(
      '/',
      {
        onRequest: manage,
        schema: docs.signedIn([401, 403], {
          summary: 'Every setting (settings:manage)',
          response: { 200: envelope(AppSettingListSchema) },
        }),
      },
      async (request) => ok(await settings.list(actorOf(request))),
    );

    app.post(
      '/add',
      {
        onRequest: manage,
        schema: docs.signedIn([400, 401, 403, 409], {
          summary: 'Add a setting; names are unique case-insensitively; known settings’ values are validated',
          body: CreateSettingBodySchema,
          response: { 201: envelope(AppSettingSchema) },
        }),
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(ok(await settings.create(actorOf(request), request.body.setting), SettingMessages.created)),
    );

    app.put(
      '/edit/:id',
      {
        onRequest: manage,
        schema: docs.signedIn([400, 401, 403, 404, 409], {
          summary: 'Edit a setting (name, value, description); a known setting cannot be renamed',
          params: IdParamSchema,
          body: UpdateSettingBodySchema,
          response: { 200: envelope(AppSettingSchema) },
        }),
      },
      async (request) =>
        ok(await settings.update(actorOf(request), request.params.id, request.body), SettingMessages.updated),
    );

    app.delete(
      '/delete',
      {
        onRequest: manage,
        schema: docs.signedIn([400, 401, 403, 404, 409], {
          summary: 'Delete a setting by id; known (seeded) settings cannot be deleted',
          body: DeleteSettingBodySchema,
          response: { 200: MessageOnlyResponseSchema },
        }),
      },
      async (request) => {
        await settings.remove(actorOf(request), request.body.id);
        return { success: true as const, message: SettingMessages.deleted, data: null };
      },
    );
  };
}

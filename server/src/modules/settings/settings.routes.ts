import {
  AppSettingListSchema,
  AppSettingSchema,
  CreateSettingBodySchema,
  DeleteSettingBodySchema,
  ErrorResponseSchema,
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

const e = ErrorResponseSchema;
const bearer = [{ bearer: [] }];

/** Application settings under /api/appsetting (the spec's paths); settings:manage except /public. */
export function settingsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { settings } = ctx.services;
  const manage = ctx.hooks.requirePermission('settings:manage');
  return async (app) => {
    app.get(
      '/public',
      {
        schema: {
          tags: ['settings'],
          summary: 'Locale, time zone and upload limit for the web app (no sign-in needed)',
          response: { 200: envelope(PublicSettingsSchema) },
        },
      },
      async () => ok(await settings.publicSettings()),
    );

    app.get(
      '/',
      {
        onRequest: manage,
        schema: {
          tags: ['settings'],
          summary: 'Every setting (settings:manage)',
          security: bearer,
          response: { 200: envelope(AppSettingListSchema), 401: e, 403: e },
        },
      },
      async (request) => ok(await settings.list(actorOf(request))),
    );

    app.post(
      '/add',
      {
        onRequest: manage,
        schema: {
          tags: ['settings'],
          summary: 'Add a setting; names are unique case-insensitively; known settings’ values are validated',
          security: bearer,
          body: CreateSettingBodySchema,
          response: { 201: envelope(AppSettingSchema), 400: e, 401: e, 403: e, 409: e },
        },
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
        schema: {
          tags: ['settings'],
          summary: 'Edit a setting (name, value, description); a known setting cannot be renamed',
          security: bearer,
          params: IdParamSchema,
          body: UpdateSettingBodySchema,
          response: { 200: envelope(AppSettingSchema), 400: e, 401: e, 403: e, 404: e, 409: e },
        },
      },
      async (request) =>
        ok(await settings.update(actorOf(request), request.params.id, request.body), SettingMessages.updated),
    );

    app.delete(
      '/delete',
      {
        onRequest: manage,
        schema: {
          tags: ['settings'],
          summary: 'Delete a setting by id; known (seeded) settings cannot be deleted',
          security: bearer,
          body: DeleteSettingBodySchema,
          response: { 200: MessageOnlyResponseSchema, 400: e, 401: e, 403: e, 404: e, 409: e },
        },
      },
      async (request) => {
        await settings.remove(actorOf(request), request.body.id);
        return { success: true as const, message: SettingMessages.deleted, data: null };
      },
    );
  };
}

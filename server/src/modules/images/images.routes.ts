import multipart from '@fastify/multipart';
import {
  IdParamSchema,
  ImageContentQuerySchema,
  ImageMessages,
  ImageSchema,
  ListImagesQuerySchema,
  MessageOnlyResponseSchema,
  UPLOAD_DUPLICATE_CODE,
  UploadDuplicateResponseSchema,
  envelope,
  pagedEnvelope,
} from '@medshare/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { AppError, badRequest, errorStatus } from '../../errors.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { sendStoredContent } from '../../http/content-headers.ts';
import { ok, paged } from '../../http/envelope.ts';
import { type ErrorStatus, routeDocs } from '../../http/route-schema.ts';
import { MALFORMED_UPLOAD, type UploadPart } from './upload.ts';

const REFUSALS = [400, 401, 403, 404] satisfies ErrorStatus[];
const docs = routeDocs('images');
const ContentParamsSchema = z.object({ id: z.string().max(64).describe('Image id') });

/**
 * Busboy reports a broken body (bad or missing boundary, body cut short) with plain errors: they
 * are the client's fault, so they answer 400 instead of falling through to a 500.
 */
function asClientError(err: unknown): unknown {
  if (err instanceof AppError || errorStatus(err) !== undefined) return err;
  return badRequest(MALFORMED_UPLOAD);
}

function markClientError(err: Error) {
  if (errorStatus(err) === undefined)
    Object.assign(err, { statusCode: 400, code: 'bad_request', message: MALFORMED_UPLOAD });
}

/** The multipart stream as neutral parts; the service decides what is acceptable. */
async function* partsOf(request: FastifyRequest, limits: { fileBytes: number }): AsyncIterable<UploadPart> {
  if (!request.isMultipart()) return;
  try {
    const parts = request.parts({
      limits: {
        fileSize: limits.fileBytes,
        files: 1,
        fields: 10,
        parts: 12,
        fieldSize: 8 * 1024,
        fieldNameSize: 100,
        headerPairs: 50,
      },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        // A file cut short fails its stream (maybe already, when the whole body was parsed before
        // this part is handed over); mark that error as the client's so that it answers 400.
        if (part.file.errored) markClientError(part.file.errored);
        part.file.once('error', markClientError);
        yield {
          kind: 'file',
          fieldname: part.fieldname,
          filename: part.filename ?? '',
          mimetype: part.mimetype ?? '',
          stream: part.file,
        };
      } else {
        yield {
          kind: 'field',
          name: part.fieldname,
          value: typeof part.value === 'string' ? part.value : String(part.value ?? ''),
          truncated: part.valueTruncated,
        };
      }
    }
  } catch (err) {
    throw asClientError(err);
  }
}

/** Upload, lists, content and delete (`docs/architecture.md` › Images). Registered under /api. */
export function imagesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { images } = ctx.services;
  return async (app) => {
    // Size is enforced by the service while streaming (it knows the setting and the message).
    await app.register(multipart, { throwFileSizeLimit: false });

    app.post(
      '/upload/image',
      {
        preHandler: ctx.hooks.requirePermission('image:upload'),
        schema: docs.signedIn([...REFUSALS, 413, 415], {
          summary: 'Upload an image (multipart: caption, file, patientId); the type is decided by the bytes',
          description: `Accepts JPEG, PNG, PDF and DICOM up to the max_upload_mb setting. 415: '${ImageMessages.invalidType}'; 413 too large; 400 missing file, blank caption or unknown patient. 201 with the new image; 200 with code '${UPLOAD_DUPLICATE_CODE}' and the image already stored when the same uploader already stored this DICOM instance (same SOP Instance UID) for the same patient: nothing is stored twice.`,
          consumes: ['multipart/form-data'],
          response: { 201: envelope(ImageSchema), 200: UploadDuplicateResponseSchema },
        }),
      },
      async (request, reply) => {
        try {
          const { image, duplicate } = await images.upload(
            actorOf(request),
            (limits) => partsOf(request, limits),
            request.ip,
          );
          if (duplicate) {
            return reply
              .status(200)
              .send({ success: true, message: ImageMessages.duplicate, code: UPLOAD_DUPLICATE_CODE, data: image });
          }
          return reply.status(201).send(ok(image, ImageMessages.uploaded));
        } catch (err) {
          // Refused before its body was read to the end (a malformed multipart header, a refused
          // type): nobody reads the rest, so the connection closes after the answer instead of
          // waiting on unread bytes while the client waits on the answer.
          if (!request.raw.complete) reply.header('connection', 'close');
          throw err;
        }
      },
    );

    app.get(
      '/upload/my-images',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn(REFUSALS, {
          summary: 'Images I uploaded plus images shared with me, newest first',
          querystring: ListImagesQuerySchema,
          response: { 200: pagedEnvelope(ImageSchema) },
        }),
      },
      async (request) => {
        const { items, pagination } = await images.list(actorOf(request), 'mine', request.query);
        return paged(items, pagination);
      },
    );

    app.get(
      '/upload/shared-images',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn(REFUSALS, {
          summary: 'Images assigned or shared to me (the patient view), newest first',
          querystring: ListImagesQuerySchema,
          response: { 200: pagedEnvelope(ImageSchema) },
        }),
      },
      async (request) => {
        const { items, pagination } = await images.list(actorOf(request), 'shared', request.query);
        return paged(items, pagination);
      },
    );

    app.get(
      '/upload/images',
      {
        preHandler: ctx.hooks.requirePermission('image:view_all'),
        schema: docs.signedIn(REFUSALS, {
          summary: 'Every image (admin)',
          querystring: ListImagesQuerySchema,
          response: { 200: pagedEnvelope(ImageSchema) },
        }),
      },
      async (request) => {
        const { items, pagination } = await images.list(actorOf(request), 'all', request.query);
        return paged(items, pagination);
      },
    );

    app.delete(
      '/upload/image/:id',
      {
        preHandler: ctx.hooks.requirePermission('image:delete'),
        schema: docs.signedIn(REFUSALS, {
          summary: 'Delete an image (uploader or admin): revokes its shares and removes its blobs',
          params: IdParamSchema,
          response: { 200: MessageOnlyResponseSchema },
        }),
      },
      async (request) => {
        await images.deleteImage(actorOf(request), request.params.id);
        return { success: true as const, message: ImageMessages.deleted, data: null };
      },
    );

    for (const variant of ['content', 'thumbnail'] as const) {
      app.get(
        `/images/:id/${variant}`,
        {
          preHandler: ctx.hooks.authenticate,
          schema: docs.signedIn([401, 404], {
            summary:
              variant === 'content'
                ? 'The decrypted file (bearer header only); ?download=1 for an attachment'
                : 'The decrypted thumbnail, at most 320 px (JPEG; WebP if made before 2026-12-06)',
            params: ContentParamsSchema,
            querystring: ImageContentQuerySchema,
            response: { 200: z.unknown().describe('The file bytes') },
          }),
        },
        async (request, reply) => {
          const answer = await images.openContent(
            actorOf(request),
            request.params.id,
            variant,
            request.query.download === '1',
          );
          return sendStoredContent(reply, answer);
        },
      );
    }
  };
}

import {
  DicomJsonSchema,
  DicomMetadataSchema,
  ErrorResponseSchema,
  QidoQuerySchema,
  envelope,
} from '@medshare/contracts';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { ok } from '../../http/envelope.ts';
import type { Part } from './dicom.service.ts';

const errors = { 400: ErrorResponseSchema, 401: ErrorResponseSchema, 404: ErrorResponseSchema };
const bearer = [{ bearer: [] }];
const uid = z.string().max(64).describe('A DICOM UID');
const StudyParams = z.object({ study: uid });
const SeriesParams = StudyParams.extend({ series: uid });
const InstanceParams = SeriesParams.extend({ instance: uid });
const FramesParams = InstanceParams.extend({
  frames: z.string().max(4000).describe('Comma-separated frame numbers, from 1'),
});

/** Headers of every answer that carries image data or identifiers (as for /api/images/:id/content). */
function contentHeaders(reply: FastifyReply) {
  return reply.header('cache-control', 'private, no-store').header('x-content-type-options', 'nosniff');
}

/** multipart/related (RFC 2387) with one body part per object or frame. */
function sendMultipart(reply: FastifyReply, type: string, parts: Part[]) {
  const boundary = `medshare-${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Type: ${part.contentType}\r\nContent-Length: ${part.bytes.length}\r\n\r\n`),
    );
    chunks.push(Buffer.from(part.bytes.buffer, part.bytes.byteOffset, part.bytes.byteLength));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(chunks);
  return contentHeaders(reply)
    .header('content-type', `multipart/related; type="${type}"; boundary=${boundary}`)
    .header('content-length', String(body.length))
    .send(body);
}

/** GET /api/images/:id/dicom/metadata (registered under /api). */
export function dicomMetadataRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { dicom } = ctx.services;
  return async (app) => {
    app.get(
      '/images/:id/dicom/metadata',
      {
        preHandler: ctx.hooks.authenticate,
        schema: {
          tags: ['dicom'],
          summary: 'DICOM attributes of an image: non-PHI for anyone who sees the item, PHI only for content viewers',
          security: bearer,
          params: z.object({ id: z.string().max(64) }),
          response: { 200: envelope(DicomMetadataSchema), ...errors },
        },
      },
      async (request, reply) => {
        contentHeaders(reply);
        return ok(await dicom.metadata(actorOf(request), request.params.id));
      },
    );
  };
}

/** Read-only DICOMweb (QIDO-RS, WADO-RS) over the DICOM objects the caller may see. Registered under /api/dicomweb. */
export function dicomwebRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { dicom } = ctx.services;
  const json = { 200: z.array(DicomJsonSchema).describe('application/dicom+json'), ...errors };
  return async (app) => {
    const qido = (level: 'studies' | 'series' | 'instances', summary: string, params: z.ZodObject | undefined) =>
      ({
        preHandler: ctx.hooks.authenticate,
        schema: {
          tags: ['dicomweb'],
          summary,
          security: bearer,
          ...(params ? { params } : {}),
          querystring: QidoQuerySchema,
          produces: ['application/dicom+json'],
          response: json,
        },
        level,
      }) as const;

    for (const [url, level, summary, params] of [
      ['/studies', 'studies', 'QIDO-RS: search for studies', undefined],
      ['/series', 'series', 'QIDO-RS: search for series', undefined],
      ['/instances', 'instances', 'QIDO-RS: search for instances', undefined],
      ['/studies/:study/series', 'series', "QIDO-RS: a study's series", StudyParams],
      ['/studies/:study/instances', 'instances', "QIDO-RS: a study's instances", StudyParams],
      ['/studies/:study/series/:series/instances', 'instances', "QIDO-RS: a series' instances", SeriesParams],
    ] as const) {
      const { level: _level, ...options } = qido(level, summary, params);
      app.get(url, options, async (request, reply) => {
        const path = request.params as { study?: string; series?: string };
        const answer = await dicom.search(actorOf(request), level, path, request.query);
        contentHeaders(reply).type('application/dicom+json');
        return answer;
      });
    }

    app.get(
      '/studies/:study/series/:series/instances/:instance',
      {
        preHandler: ctx.hooks.authenticate,
        schema: {
          tags: ['dicomweb'],
          summary: 'WADO-RS: the instance as multipart/related; type="application/dicom"',
          security: bearer,
          params: InstanceParams,
          produces: ['multipart/related'],
          response: { 200: z.unknown().describe('multipart/related; type="application/dicom"'), ...errors },
        },
      },
      async (request, reply) => {
        const p = request.params;
        return sendMultipart(
          reply,
          'application/dicom',
          await dicom.instance(actorOf(request), p.study, p.series, p.instance),
        );
      },
    );

    app.get(
      '/studies/:study/series/:series/instances/:instance/metadata',
      {
        preHandler: ctx.hooks.authenticate,
        schema: {
          tags: ['dicomweb'],
          summary: 'WADO-RS: instance metadata (DICOM JSON, bulk data left out)',
          security: bearer,
          params: InstanceParams,
          produces: ['application/dicom+json'],
          response: json,
        },
      },
      async (request, reply) => {
        const p = request.params;
        const answer = await dicom.instanceMetadata(actorOf(request), p.study, p.series, p.instance);
        contentHeaders(reply).type('application/dicom+json');
        return answer;
      },
    );

    app.get(
      '/studies/:study/series/:series/instances/:instance/frames/:frames',
      {
        preHandler: ctx.hooks.authenticate,
        schema: {
          tags: ['dicomweb'],
          summary:
            'WADO-RS: frames. Native: application/octet-stream (little endian); compressed: the stored bitstream with its media type and transfer-syntax',
          security: bearer,
          params: FramesParams,
          produces: ['multipart/related'],
          response: { 200: z.unknown().describe('multipart/related, one part per frame'), ...errors },
        },
      },
      async (request, reply) => {
        const p = request.params;
        const parts = await dicom.frames(actorOf(request), p.study, p.series, p.instance, p.frames);
        const type = parts[0]?.contentType.split(';')[0] ?? 'application/octet-stream';
        return sendMultipart(reply, type, parts);
      },
    );
  };
}

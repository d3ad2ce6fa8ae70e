import {
  DicomJsonSchema,
  DicomMetadataSchema,
  ErrorResponseSchema,
  QidoQuerySchema,
  RenderedQuerySchema,
  envelope,
} from '@medshare/contracts';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { storedContentHeaders } from '../../http/content-headers.ts';
import { ok } from '../../http/envelope.ts';
import { freeEachOnceWritten } from '../../storage/free-buffer.ts';
import { type ErrorStatus, routeDocs } from '../../http/route-schema.ts';
import { type Part, renderOptionsOf } from './wado.ts';

/** Every DICOM route answers 400 (bad UID or query), 401 and 404 (nothing the caller may see). */
const REFUSALS = [400, 401, 404] satisfies ErrorStatus[];
/** WADO-RS reads also answer 406: nothing in the Accept header can be produced (docs/decisions.md › DICOMweb content negotiation). */
const WADO_REFUSALS = [400, 401, 404, 406] satisfies ErrorStatus[];
const dicomDocs = routeDocs('dicom');
const dicomwebDocs = routeDocs('dicomweb');
const uid = z.string().max(64).describe('A DICOM UID');
const StudyParams = z.object({ study: uid });
const SeriesParams = StudyParams.extend({ series: uid });
const InstanceParams = SeriesParams.extend({ instance: uid });
const FramesParams = InstanceParams.extend({
  frames: z.string().max(4000).describe('Comma-separated frame numbers, from 1'),
});

/** Every answer here carries stored bytes or identifiers: as for /api/images/:id/content. */
const contentHeaders = storedContentHeaders;

/** How many parts, and how many bytes of them, a multipart answer reads ahead of the one it sends. */
const READ_AHEAD_PARTS = 8;
const READ_AHEAD_BYTES = 8 * 1024 * 1024;

/**
 * multipart/related (RFC 2387) with one body part per object, frame or rendered image, written as a
 * stream: each part's header, its bytes (a view of the worker's buffer, a stored object's decrypted
 * stream, or a transcoded object made when the answer reaches it) and CRLF in turn, never joined
 * into one buffer. Content-Length only when every part's size is known beforehand.
 */
function sendMultipart(reply: FastifyReply, type: string, parts: Part[]) {
  const boundary = `medshare-${randomBytes(12).toString('hex')}`;
  const sizeOf = (part: Part) => ('bytes' in part ? part.bytes.length : part.size);
  const head = (part: Part, size: number | null) =>
    Buffer.from(
      `--${boundary}\r\nContent-Type: ${part.contentType}\r\n${size === null ? '' : `Content-Length: ${size}\r\n`}\r\n`,
    );
  const crlf = Buffer.from('\r\n');
  const close = Buffer.from(`--${boundary}--\r\n`);
  const sizes = parts.map(sizeOf);
  const known = sizes.every((n): n is number => n !== null);
  const opened: Readable[] = [];
  // A stored instance read whole, and a worker's answer, are this answer's own: freed once written.
  const freeOnceWritten = freeEachOnceWritten(reply.raw);
  // Read-ahead: the parts after the one being sent are opened (a small stored instance: read,
  // decrypted and checked whole) up to READ_AHEAD_PARTS and READ_AHEAD_BYTES of known sizes, so that
  // the disk and the decryption of the next ones overlap the sending of this one instead of waiting
  // for it. A part of unknown size (transcoded) or one larger than the budget opens at its turn.
  const ahead = new Map<number, Promise<Readable | Uint8Array | Uint8Array[]>>();
  let aheadBytes = 0;
  let next = 0;
  let ended = false;
  const prefetch = (from: number) => {
    next = Math.max(next, from);
    while (next < parts.length && ahead.size < READ_AHEAD_PARTS) {
      const part = parts[next]!;
      if (!('open' in part)) {
        next++;
        continue;
      }
      if (part.size === null || aheadBytes + part.size > READ_AHEAD_BYTES) return;
      const opening = part.open();
      // A stream opened after the answer ended (the client went away) is closed at once.
      opening
        .then((content) => {
          if (!(content instanceof Readable)) return;
          if (ended) content.destroy();
          else opened.push(content);
        })
        .catch(() => undefined);
      ahead.set(next++, opening);
      aheadBytes += part.size;
    }
  };
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      for (const [i, part] of parts.entries()) {
        if ('bytes' in part) {
          if (part.owned) freeOnceWritten(part.bytes);
          yield head(part, part.bytes.length);
          yield part.bytes;
        } else if ('stream' in part) {
          yield head(part, part.size);
          yield* part.stream as AsyncIterable<Uint8Array>;
        } else {
          const early = ahead.get(i);
          if (early) {
            ahead.delete(i);
            aheadBytes -= part.size ?? 0;
          }
          const opening = early ?? part.open();
          prefetch(i + 1);
          const content = await opening;
          if (content instanceof Uint8Array || Array.isArray(content)) {
            const pieces = content instanceof Uint8Array ? [content] : content;
            for (const piece of pieces) freeOnceWritten(piece);
            yield head(
              part,
              pieces.reduce((n, piece) => n + piece.length, 0),
            );
            yield* pieces;
          } else {
            opened.push(content);
            yield head(part, part.size);
            yield* content as AsyncIterable<Uint8Array>;
          }
        }
        yield crlf;
      }
      yield close;
    } finally {
      // A client that went away: the stored objects' streams not finished yet are closed too.
      ended = true;
      for (const part of parts) if ('stream' in part) part.stream.destroy();
      for (const stream of opened) stream.destroy();
    }
  }
  contentHeaders(reply).header('content-type', `multipart/related; type="${type}"; boundary=${boundary}`);
  if (known) {
    const length =
      parts.reduce((n, part, i) => n + head(part, sizes[i]!).length + crlf.length + sizes[i]!, 0) + close.length;
    reply.header('content-length', String(length));
  }
  return reply.send(Readable.from(body(), { objectMode: false }));
}

/** GET /api/images/:id/dicom/metadata (registered under /api). */
export function dicomMetadataRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { dicom } = ctx.services;
  return async (app) => {
    app.get(
      '/images/:id/dicom/metadata',
      {
        preHandler: ctx.hooks.authenticate,
        schema: dicomDocs.signedIn(REFUSALS, {
          summary: 'DICOM attributes of an image: non-PHI for anyone who sees the item, PHI only for content viewers',
          params: z.object({ id: z.string().max(64) }),
          response: { 200: envelope(DicomMetadataSchema) },
        }),
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
  const json = { 200: z.array(DicomJsonSchema).describe('application/dicom+json') };
  return async (app) => {
    // PS3.18 §8.9: OPTIONS on the service root; GET too, for clients and people that cannot send OPTIONS.
    app.route({
      method: ['GET', 'OPTIONS'],
      url: '',
      schema: dicomwebDocs.open([406], {
        summary: 'DICOMweb capabilities: a WADL document (PS3.18 Annex H), or JSON when asked for application/json',
        produces: ['application/vnd.sun.wadl+xml', 'application/json'],
        response: { 200: z.unknown().describe('application/vnd.sun.wadl+xml or application/json') },
      }),
      handler: async (request, reply) => {
        const answer = dicom.capabilities(request.headers.accept);
        return reply.type(answer.type).send(answer.body);
      },
    });

    const qido = (summary: string, params: z.ZodObject | undefined) => ({
      preHandler: ctx.hooks.authenticate,
      schema: dicomwebDocs.signedIn(REFUSALS, {
        summary,
        ...(params ? { params } : {}),
        querystring: QidoQuerySchema,
        produces: ['application/dicom+json'],
        response: json,
      }),
    });

    for (const [url, level, summary, params] of [
      ['/studies', 'studies', 'QIDO-RS: search for studies', undefined],
      ['/series', 'series', 'QIDO-RS: search for series', undefined],
      ['/instances', 'instances', 'QIDO-RS: search for instances', undefined],
      ['/studies/:study/series', 'series', "QIDO-RS: a study's series", StudyParams],
      ['/studies/:study/instances', 'instances', "QIDO-RS: a study's instances", StudyParams],
      ['/studies/:study/series/:series/instances', 'instances', "QIDO-RS: a series' instances", SeriesParams],
    ] as const) {
      app.get(url, qido(summary, params), async (request, reply) => {
        const path = request.params as { study?: string; series?: string };
        const answer = await dicom.search(actorOf(request), level, path, request.query);
        contentHeaders(reply).type('application/dicom+json');
        if (answer.warnings.length) reply.header('warning', answer.warnings.join(', '));
        return answer.items;
      });
    }

    // WADO-RS retrieve, metadata and rendered at study, series and instance level.
    const levels = [
      ['/studies/:study', StudyParams, 'study'],
      ['/studies/:study/series/:series', SeriesParams, 'series'],
      ['/studies/:study/series/:series/instances/:instance', InstanceParams, 'instance'],
    ] as const;
    const targetOf = (p: { study: string; series?: string; instance?: string }) => ({
      study: p.study,
      series: p.series,
      instance: p.instance,
    });
    for (const [url, params, level] of levels) {
      app.get(
        url,
        {
          preHandler: ctx.hooks.authenticate,
          schema: dicomwebDocs.signedIn(WADO_REFUSALS, {
            summary: `WADO-RS: the ${level} as multipart/related; type="application/dicom" (as stored, or Explicit VR Little Endian as the Accept header asks)`,
            params,
            produces: ['multipart/related'],
            response: {
              200: z.unknown().describe('multipart/related; type="application/dicom", one part per instance'),
              413: ErrorResponseSchema.describe(`More instances than one answer may list`),
            },
          }),
        },
        async (request, reply) =>
          sendMultipart(
            reply,
            'application/dicom',
            await dicom.retrieve(actorOf(request), targetOf(request.params), request.headers.accept),
          ),
      );

      app.get(
        `${url}/metadata`,
        {
          preHandler: ctx.hooks.authenticate,
          schema: dicomwebDocs.signedIn(WADO_REFUSALS, {
            summary: `WADO-RS: ${level} metadata (DICOM JSON, one data set per instance, bulk data left out)`,
            params,
            produces: ['application/dicom+json'],
            response: json,
          }),
        },
        async (request, reply) => {
          const sets = await dicom.wadoMetadata(actorOf(request), targetOf(request.params), request.headers.accept);
          // A JSON array written a data set at a time (a study's metadata is never one string).
          async function* body(): AsyncGenerator<string> {
            let first = true;
            yield '[';
            for await (const set of sets) {
              yield (first ? '' : ',') + JSON.stringify(set);
              first = false;
            }
            yield ']';
          }
          return contentHeaders(reply).type('application/dicom+json').send(Readable.from(body()));
        },
      );

      app.get(
        `${url}/rendered`,
        {
          preHandler: ctx.hooks.authenticate,
          schema: dicomwebDocs.signedIn(WADO_REFUSALS, {
            summary:
              level === 'instance'
                ? 'WADO-RS rendered: the instance (first frame) as image/jpeg or image/png'
                : `WADO-RS rendered: every frame of the ${level}'s images, multipart/related of image/jpeg or image/png`,
            params,
            querystring: RenderedQuerySchema,
            produces: level === 'instance' ? ['image/jpeg', 'image/png'] : ['multipart/related'],
            response: {
              200: z.unknown().describe(level === 'instance' ? 'image/jpeg or image/png' : 'multipart/related'),
              413: ErrorResponseSchema.describe('More rendered images than one answer may carry'),
              429: ErrorResponseSchema.describe("The caller's DICOM queue is full"),
            },
          }),
        },
        async (request, reply) => {
          const options = renderOptionsOf(request.query);
          const answer = await dicom.rendered(
            actorOf(request),
            targetOf(request.params),
            null,
            request.headers.accept,
            options,
          );
          if (level !== 'instance') return sendMultipart(reply, answer.type, answer.parts);
          const [part] = answer.parts as Array<{ bytes: Uint8Array }>;
          return contentHeaders(reply)
            .type(answer.type)
            .send(Buffer.from(part!.bytes.buffer, part!.bytes.byteOffset, part!.bytes.byteLength));
        },
      );
    }

    app.get(
      '/studies/:study/series/:series/instances/:instance/frames/:frames',
      {
        preHandler: ctx.hooks.authenticate,
        // 413 and 429 keep their own descriptions: the preamble adds only the common refusals.
        schema: dicomwebDocs.signedIn(WADO_REFUSALS, {
          summary:
            'WADO-RS: frames. Native: application/octet-stream (little endian); compressed: the stored bitstream with its media type and transfer-syntax, or decoded to native when application/octet-stream without transfer-syntax is asked for',
          params: FramesParams,
          produces: ['multipart/related'],
          response: {
            200: z.unknown().describe('multipart/related, one part per frame'),
            413: ErrorResponseSchema.describe('The frames asked for exceed what one answer may carry'),
            429: ErrorResponseSchema.describe("The caller's DICOM queue is full"),
          },
        }),
      },
      async (request, reply) => {
        const p = request.params;
        const parts = await dicom.frames(
          actorOf(request),
          p.study,
          p.series,
          p.instance,
          p.frames,
          request.headers.accept,
        );
        const type = parts[0]?.contentType.split(';')[0] ?? 'application/octet-stream';
        return sendMultipart(reply, type, parts);
      },
    );

    app.get(
      '/studies/:study/series/:series/instances/:instance/frames/:frames/rendered',
      {
        preHandler: ctx.hooks.authenticate,
        schema: dicomwebDocs.signedIn(WADO_REFUSALS, {
          summary: 'WADO-RS rendered: one frame as image/jpeg or image/png',
          params: FramesParams,
          querystring: RenderedQuerySchema,
          produces: ['image/jpeg', 'image/png'],
          response: {
            200: z.unknown().describe('image/jpeg or image/png'),
            429: ErrorResponseSchema.describe("The caller's DICOM queue is full"),
          },
        }),
      },
      async (request, reply) => {
        const p = request.params;
        const answer = await dicom.rendered(
          actorOf(request),
          targetOf(p),
          p.frames,
          request.headers.accept,
          renderOptionsOf(request.query),
        );
        const [part] = answer.parts as Array<{ bytes: Uint8Array }>;
        return contentHeaders(reply)
          .type(answer.type)
          .send(Buffer.from(part!.bytes.buffer, part!.bytes.byteOffset, part!.bytes.byteLength));
      },
    );
  };
}

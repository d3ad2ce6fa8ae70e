import { DicomJsonSchema, ErrorResponseSchema, STOW_PATIENT_HEADER, StowQuerySchema } from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { storedContentHeaders } from '../../http/content-headers.ts';
import { type ErrorStatus, routeDocs } from '../../http/route-schema.ts';

const docs = routeDocs('dicomweb');
const REFUSALS = [400, 401, 403, 415] satisfies ErrorStatus[];
const headerOf = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : v);
const StudyParams = z.object({
  study: z.string().max(64).describe('A DICOM UID: every instance must be of this study'),
});

/**
 * STOW-RS (`docs/architecture.md` › Studies and DICOMweb): `POST /studies` and `POST /studies/{study}`
 * under /api/dicomweb. The body is not parsed here: the service reads it part by part as it arrives.
 */
export function stowRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { stow } = ctx.services;
  return async (app) => {
    // Every body reaches the handler unread (this plugin only): the service refuses a wrong media
    // type with 415 and its message, and streams multipart/related instead of buffering it.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // An answer given before the body was read to its end (a refusal, a limit): the connection
    // closes after it, instead of waiting on bytes nobody reads.
    app.addHook('onSend', async (request, reply, payload) => {
      if (!request.raw.complete) reply.header('connection', 'close');
      return payload;
    });

    const answer = {
      200: DicomJsonSchema.describe('Store Instances Response Module (PS3.18 Annex I): every instance stored'),
      202: DicomJsonSchema.describe(
        'Some instances stored; FailedSOPSequence (0008,1198) lists the others with FailureReason',
      ),
      409: DicomJsonSchema.describe('No instance stored; FailedSOPSequence (0008,1198) says why for each'),
      413: ErrorResponseSchema.describe('The body is over max_import_mb (checked from Content-Length before reading)'),
    };
    for (const [url, params] of [
      ['/studies', undefined],
      ['/studies/:study', StudyParams],
    ] as const) {
      app.post(
        url,
        {
          preHandler: ctx.hooks.requirePermission('image:upload'),
          schema: docs.signedIn(REFUSALS, {
            summary: `STOW-RS: store DICOM instances${params ? ' of this study' : ''} for a patient (multipart/related; type="application/dicom")`,
            description:
              'Each part one DICOM instance, stored through the same pipeline as an upload (size limit max_upload_mb per instance, type check, duplicate rule, audit, patient share). ?patientId or the X-MedShare-Patient header names the patient (a MedShare user id; 400 before the body is read when missing or unknown). 415 for another media type; 400 for a body that cannot be read at all. A duplicate (same uploader, patient and SOP Instance UID) counts as stored and is listed with the instance already stored.',
            ...(params ? { params } : {}),
            querystring: StowQuerySchema,
            consumes: ['multipart/related'],
            produces: ['application/dicom+json'],
            response: answer,
          }),
        },
        async (request, reply) => {
          const length = request.headers['content-length'];
          const result = await stow.store(actorOf(request), {
            study: (request.params as { study?: string }).study ?? null,
            patient: {
              query: request.query.patientId || undefined,
              header: headerOf(request.headers[STOW_PATIENT_HEADER]),
            },
            contentType: request.headers['content-type'],
            contentLength: length === undefined ? null : Number(length),
            body: request.raw,
            ip: request.ip,
          });
          if (result.warning) reply.header('warning', `299 - "${result.warning.replace(/"/g, "'")}"`);
          return storedContentHeaders(reply).status(result.status).type('application/dicom+json').send(result.dataset);
        },
      );
    }
  };
}

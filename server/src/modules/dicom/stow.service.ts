import { ImageMessages, StowFailureReason } from '@medshare/contracts';
import contentType from 'content-type';
import { make as multipart, type MultipartError } from 'multipasta/node';
import { type Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Logger } from 'pino';
import { AppError, badRequest, forbidden, tooLarge, unsupportedType } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';
import { isUuid } from '../images/access-policy.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { type Ingest, type Ingested, failureReasonOf } from './ingest.ts';
import type { IngestRepository } from './ingest.repository.ts';

/** The messages a STOW-RS caller reads (refusals before any instance is stored). */
export const StowMessages = {
  notRelated:
    'STOW-RS takes a multipart/related body with type="application/dicom": one DICOM instance per part (PS3.18 §10.5).',
  notDicomParts:
    'Only application/dicom instances are stored here; metadata with bulk data (application/dicom+json or +xml) is not supported.',
  noBoundary: 'The Content-Type names no boundary, so the parts of the body cannot be found.',
  badContentType: 'The Content-Type header cannot be read.',
  empty: 'The body holds no DICOM instance.',
  noPatient:
    'Name the patient the instances are for: ?patientId=<MedShare user id of a patient>, or the header X-MedShare-Patient.',
  twoPatients: 'The query and the X-MedShare-Patient header name different patients.',
  tooManyBytes: (mb: number) =>
    `A STOW-RS request may carry at most ${mb} MB (setting max_import_mb); send the study in several requests.`,
  tooManyParts: (n: number, more: number) =>
    `At most ${n} instances per request (setting max_import_files): ${more} more parts were read and not stored.`,
  partCap: (cap: number) => `Reading stopped after ${cap} parts; send the study in several requests.`,
  broken: {
    InvalidBoundary: 'The Content-Type names no boundary, so the parts of the body cannot be found.',
    BadHeaders: "A part's headers are malformed; the body cannot be read past them.",
    InvalidDisposition: "A part's Content-Disposition is malformed.",
    EndNotReached:
      'The body ended before its closing boundary: it was cut short, or its boundary is not the one the Content-Type names.',
    ReachedLimit: 'The body is larger than this server takes in one request.',
  },
} as const;

const MB = 1024 * 1024;
type DicomJson = Record<string, { vr: string; Value?: unknown[] }>;
/** Parts the parser has made that the loop has not reached yet: past this, the parser is fed nothing more. */
const MAX_WAITING_PARTS = 16;
/**
 * The body reaches the parser at most this many bytes at a time (a socket's chunk; a larger one is
 * cut): the parser makes every part it finds in one write at once, so this bounds them (measured:
 * 5 041 parts of 13 bytes from one 64 KiB write, 881 bytes each, 4.2 MiB). Smaller pieces cost
 * throughput: 16 KiB read one 500 MiB part 3 × slower.
 */
const FEED_BYTES = 64 * 1024;
/**
 * Instances of one request in the upload pipeline at once: the next part is read as soon as the
 * previous one's bytes are all in, while that one is made durable, checked by the worker and inserted
 * (`docs/architecture.md` › Studies and DICOMweb). Each holds at most max_upload_mb for its check.
 */
export const STOW_IN_FLIGHT = 6;

/** What the answer needs of one part within max_import_files: UIDs and a code, never the error itself. */
type Outcome =
  | { stored: true; cls: string | null; sop: string | null; study: string | null; series: string | null }
  | { stored: false; cls: string | null; sop: string | null; reason: number };

function outcomeOf(o: Ingested): Outcome {
  if (!o.stored)
    return { stored: false, cls: o.head.sopClassUid, sop: o.head.sopInstanceUid, reason: failureReasonOf(o.error) };
  const dicom = o.image.dicom;
  return {
    stored: true,
    cls: o.head.sopClassUid,
    sop: dicom?.sopInstanceUid ?? o.head.sopInstanceUid,
    study: dicom?.studyInstanceUid ?? o.head.studyUid,
    series: dicom?.seriesInstanceUid ?? o.head.seriesUid,
  };
}

export interface StowRequest {
  /** The study the URL names (`POST /studies/{study}`), or null. */
  study: string | null;
  /** The patient as the query names it, and as the X-MedShare-Patient header does. */
  patient: { query: string | undefined; header: string | undefined };
  contentType: string | undefined;
  contentLength: number | null;
  body: Readable;
  ip: string | null;
}

export interface StowAnswer {
  /** PS3.18 Table 10.5.3-1: 200 all stored, 202 some, 409 none. */
  status: 200 | 202 | 409;
  dataset: DicomJson;
  /** A Warning header's text (the body broke off, parts past the limit). */
  warning: string | null;
}

/** What a broken body is, from the parser's error or the request stream's. */
function brokenBody(err: unknown, maxMb: number): AppError {
  if (err instanceof AppError) return err;
  const tag = (err as MultipartError | undefined)?._tag;
  if (tag === 'ReachedLimit') return tooLarge(StowMessages.tooManyBytes(maxMb));
  if (tag && tag in StowMessages.broken) return badRequest(StowMessages.broken[tag]);
  // The request stream itself failed: the client went away or the connection broke mid-body.
  return badRequest(StowMessages.broken.EndNotReached);
}

const ref = (o: Outcome): DicomJson => ({
  ...(o.cls ? { '00081150': { vr: 'UI', Value: [o.cls] } } : {}),
  ...(o.sop ? { '00081155': { vr: 'UI', Value: [o.sop] } } : {}),
});

/**
 * STOW-RS (PS3.18 §10.5): a multipart/related body of application/dicom parts, each read as it
 * arrives (multipasta) and handed to the upload pipeline through `ingest`, one after the other; the
 * answer is the Store Instances Response Module (Annex I) in DICOM JSON.
 */
export function createStowService(deps: {
  ingest: Ingest;
  settings: SettingsService;
  repo: IngestRepository;
  publicUrl: string;
  log: Logger;
}) {
  const { ingest, settings, repo, publicUrl } = deps;
  const base = `${publicUrl}/api/dicomweb`;

  return {
    async store(actor: Actor, request: StowRequest): Promise<StowAnswer> {
      if (!actor.permissions.has('image:upload')) throw forbidden();
      // Everything that can be refused is refused before the first byte of the body is read.
      const { query, header } = request.patient;
      if (query && header && query !== header.trim()) throw badRequest(StowMessages.twoPatients);
      const named = query || header?.trim();
      if (!named) throw badRequest(StowMessages.noPatient, [{ field: 'patientId', message: StowMessages.noPatient }]);
      const patient = isUuid(named) ? await repo.activePatient(named) : undefined;
      if (!patient)
        throw badRequest(ImageMessages.unknownPatient, [{ field: 'patientId', message: ImageMessages.unknownPatient }]);
      let parsed: contentType.ParsedMediaType;
      try {
        parsed = contentType.parse(request.contentType ?? '');
      } catch {
        throw request.contentType ? badRequest(StowMessages.badContentType) : unsupportedType(StowMessages.notRelated);
      }
      if (parsed.type !== 'multipart/related') throw unsupportedType(StowMessages.notRelated);
      const partType = (parsed.parameters.type ?? 'application/dicom').toLowerCase();
      if (partType !== 'application/dicom') throw unsupportedType(StowMessages.notDicomParts);
      const boundary = parsed.parameters.boundary;
      if (!boundary) throw badRequest(StowMessages.noBoundary);
      const { maxImportFiles, maxImportMb } = await settings.effective();
      if (request.contentLength !== null && request.contentLength > maxImportMb * MB)
        throw tooLarge(StowMessages.tooManyBytes(maxImportMb));

      const parts = multipart({
        headers: { 'content-type': `multipart/related; boundary="${boundary}"` },
        isFile: () => true,
        maxTotalSize: maxImportMb * MB,
      });
      // Set from stream callbacks: held in an object, which the compiler does not narrow.
      const state: { broken: AppError | null; current: Readable | null } = { broken: null, current: null };
      // A part is whole once the parser starts the next one (it ended the part at the boundary),
      // even while the upload still reads it: a break after that leaves it alone.
      const complete = new WeakSet<Readable>();
      let latest: Readable | null = null;
      // The feed below waits on these: a part taken by the loop, the parser drained, a break.
      const waiting: Array<() => void> = [];
      const wake = () => {
        for (const resume of waiting.splice(0)) resume();
      };
      const breakOff = (err: unknown) => {
        if (state.broken) return;
        const broken = (state.broken = brokenBody(err, maxImportMb));
        // The part being read gets the same error, so that nothing of it is stored; reading stops.
        // The request is left alone (not destroyed), so that the answer still reaches the client;
        // the route closes the connection after it.
        for (const part of [state.current, latest])
          if (part && !complete.has(part) && !part.readableEnded) part.destroy(broken);
        request.body.unpipe(feed);
        parts.destroy();
        wake();
      };
      parts.on('error', breakOff);
      parts.on('file', (file: Readable) => {
        if (latest) complete.add(latest);
        latest = file;
        // The parser also reports errors on a part it made but the loop has not reached yet.
        file.on('error', () => undefined);
      });
      parts.on('drain', wake);
      // The parser queues every part it makes without waiting for its reader (its back-pressure is
      // only on a part's bytes), so it is fed a piece at a time and nothing more while
      // MAX_WAITING_PARTS wait or a part's bytes are held back: a body of tiny parts then holds at
      // most one piece's worth of part objects, never one per part of the body.
      const ready = () =>
        state.broken !== null || (parts.readableLength <= MAX_WAITING_PARTS && !parts.writableNeedDrain);
      const feed = new Writable({
        write(chunk: Buffer, _encoding, done) {
          void (async () => {
            for (let at = 0; at < chunk.length; at += FEED_BYTES) {
              while (!ready()) await new Promise<void>((resume) => waiting.push(resume));
              if (state.broken) return;
              parts.write(chunk.subarray(at, at + FEED_BYTES));
            }
          })().then(() => done(), done);
        },
        final(done) {
          if (!state.broken) parts.end();
          done();
        },
      });
      feed.on('error', breakOff);
      // The client went away, or the connection broke, before the body's end.
      request.body.once('error', breakOff);
      request.body.once('close', () => {
        if (!request.body.readableEnded) breakOff(badRequest(StowMessages.broken.EndNotReached));
      });
      request.body.pipe(feed);

      // Up to max_import_files parts go to the upload pipeline, each leaving a small Outcome; parts
      // past it are read to their end and counted, nothing kept of them; past twice the limit the
      // body is not read any further (`docs/security.md` › Memory bounds).
      const outcomes: Outcome[] = [];
      // Instances whose bytes are all read and whose pipeline has not finished yet (at most STOW_IN_FLIGHT).
      const inFlight = new Set<Promise<void>>();
      let extra = 0;
      const cap = 2 * maxImportFiles;
      let stopped: AppError | null = null;
      try {
        for await (const part of parts) {
          wake();
          if (part._tag !== 'File') continue;
          state.current = part;
          if (outcomes.length >= maxImportFiles) {
            if (outcomes.length + extra >= cap) {
              stopped = tooLarge(`${StowMessages.tooManyParts(maxImportFiles, extra)} ${StowMessages.partCap(cap)}`);
              breakOff(stopped);
              break;
            }
            extra++;
            part.resume();
            await finished(part).catch(() => undefined);
            state.current = null;
            continue;
          }
          // PS3.18: every part is application/dicom; one without a Content-Type is taken as the request's type says.
          const declared =
            part.info.headers['content-type'] === undefined ? 'application/dicom' : part.info.contentType;
          // The answer lists the instances in the order of their parts.
          const at = outcomes.length;
          outcomes.push(undefined as unknown as Outcome);
          const pipeline = ingest(
            actor,
            { stream: part, mediaType: declared },
            {
              ip: request.ip,
              patientId: patient.id,
              // Checked above, once for the request (`activePatient`), as the actor's permissions are.
              patientChecked: true,
              sourceError: (err) => brokenBody(err, maxImportMb),
              ...(request.study ? { study: request.study } : {}),
            },
          ).then((ingested) => {
            outcomes[at] = outcomeOf(ingested);
          });
          // ingest never throws; its part is read to its end (or broken) before it resolves.
          const running = pipeline.finally(() => inFlight.delete(running));
          inFlight.add(running);
          await Promise.race([finished(part).catch(() => undefined), pipeline]);
          state.current = null;
          while (inFlight.size >= STOW_IN_FLIGHT) await Promise.race(inFlight);
        }
      } catch (err) {
        breakOff(err);
      }
      await Promise.all(inFlight);
      const stored = outcomes.filter((o): o is Extract<Outcome, { stored: true }> => o.stored);
      if (state.broken && stored.length === 0) throw state.broken;
      if (outcomes.length === 0) throw badRequest(StowMessages.empty);

      const dataset: DicomJson = {};
      const studies = new Set(stored.map((o) => o.study));
      dataset['00081190'] =
        studies.size === 1 && [...studies][0]
          ? { vr: 'UR', Value: [`${base}/studies/${[...studies][0]}`] }
          : { vr: 'UR' };
      const failed = outcomes.filter((o): o is Extract<Outcome, { stored: false }> => !o.stored);
      // Parts past the limit are one item: Failure Reason 0xA700, no UIDs (their count is in the Warning).
      if (failed.length || extra)
        dataset['00081198'] = {
          vr: 'SQ',
          Value: [
            ...failed.map((o) => ({ ...ref(o), '00081197': { vr: 'US', Value: [o.reason] } })),
            ...(extra ? [{ '00081197': { vr: 'US', Value: [StowFailureReason.outOfResources] } }] : []),
          ],
        };
      if (stored.length)
        dataset['00081199'] = {
          vr: 'SQ',
          Value: stored.map((o) => ({
            ...ref(o),
            '00081190': { vr: 'UR', Value: [`${base}/studies/${o.study}/series/${o.series}/instances/${o.sop}`] },
          })),
        };
      const warnings = [
        ...(state.broken ? [state.broken.message] : []),
        // The cap's message already counts the parts past the limit.
        ...(extra && !(stopped && state.broken === stopped) ? [StowMessages.tooManyParts(maxImportFiles, extra)] : []),
      ];
      return {
        status: failed.length === 0 && extra === 0 ? 200 : stored.length ? 202 : 409,
        dataset,
        warning: warnings.length ? warnings.join(' ') : null,
      };
    },
  };
}
export type StowService = ReturnType<typeof createStowService>;

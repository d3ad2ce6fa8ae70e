import { type Image, StowFailureReason } from '@medshare/contracts';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Logger } from 'pino';
import { AppError, badRequest, errorCode, errorMessage, errorStatus, loggedMessage } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';
import type { ImagesService } from '../images/images.service.ts';
import type { UploadPart } from '../images/upload.ts';
import type { DicomColumns } from './dicom-engine.ts';
import { type DicomHead, HeadProbe } from './dicom-head.ts';

/** An instance that stopped arriving before its end (a body cut short, an association gone). */
export const CUT_SHORT = 'The instance ended before its last byte arrived; nothing of it was stored.';
export const STUDY_MISMATCH = 'The instance belongs to another study than the one the URL names.';

/** One incoming DICOM instance: its bytes as they arrive and the media type its sender declared. */
export interface IncomingInstance {
  stream: Readable;
  mediaType: string;
}

export interface IngestOptions {
  ip: string | null;
  /** The patient it is stored for: known beforehand (STOW), or found from its head (DIMSE). */
  patientId: string | null | ((head: DicomHead) => Promise<string | null>);
  /** The caller found `patientId` an active patient's in this request: the upload does not look it up again. */
  patientChecked?: boolean;
  /**
   * The study every instance must be of (STOW `/studies/{study}`): refused as soon as its head is
   * read, and again by the full parse's columns before the row is inserted, since the head (the first
   * 1 MiB, up to the pixel data) and the whole object can disagree (a second Study Instance UID after
   * the pixel data, for one).
   */
  study?: string;
  /** What an error of the source means (STOW: the multipart parser's reports); default: cut short. */
  sourceError?: (err: unknown) => AppError;
}

export type Ingested =
  | { stored: true; duplicate: boolean; image: Image; head: DicomHead }
  | { stored: false; error: unknown; head: DicomHead };

/** What a caption says: the modality only. The Study Description is sealed PHI (`docs/security.md` › What a share mail may contain). */
export const captionOf = (head: DicomHead) => (head.modality ? `${head.modality} study` : 'DICOM study');

/** PS3.18 Table I.2-2 / PS3.4 Table B.2-1 failure code for why an instance was not stored. */
export function failureReasonOf(error: unknown): number {
  const status = error instanceof AppError ? error.status : errorStatus(error);
  if (status === 413 || status === 429 || status === 503) return StowFailureReason.outOfResources;
  if (status === 409 && errorCode(error) === 'study_mismatch') return StowFailureReason.studyMismatch;
  if (status === 400 || status === 415) return StowFailureReason.cannotUnderstand;
  return StowFailureReason.processingFailure;
}

/**
 * Our refusal as the error of the stream the upload reads: the upload passes on a stream's error
 * that carries a status (`statusCode`), and takes any other for a malformed body.
 */
function carried<E extends AppError | null>(err: E): E {
  if (err) Object.assign(err, { statusCode: err.status });
  return err;
}

export const studyMismatch = () => new AppError(409, 'study_mismatch', STUDY_MISMATCH);

/**
 * Hands one instance to the upload pipeline (`images/upload.ts`: the same encrypted store, size
 * limit, type check, DICOM inspection, duplicate rule, patient share and audit as a web upload) as
 * a multipart upload of its own: the file part, then the patient and a caption. Never throws: the
 * outcome says whether it was stored, and the instance's bytes are read to their end either way, so
 * that the next instance of a STOW body or an association can follow.
 */
export function createIngest({ images, log }: { images: Pick<ImagesService, 'upload'>; log: Logger }) {
  return async function ingest(actor: Actor, incoming: IncomingInstance, options: IngestOptions): Promise<Ingested> {
    const study = options.study;
    const probe = new HeadProbe(
      study ? (head) => carried(head.studyUid === study ? null : studyMismatch()) : () => null,
    );
    const source = incoming.stream;
    // A source that breaks (a body cut short) fails the probe with a client error: the upload then
    // removes what it wrote. The listener stays: a parser may report errors on a finished part.
    const meaning =
      options.sourceError ?? ((err: unknown) => badRequest(errorStatus(err) ? errorMessage(err) : CUT_SHORT));
    source.on('error', (err: unknown) => probe.destroy(carried(err instanceof AppError ? err : meaning(err))));
    // The probe's own refusal is read by the upload through its iteration; it may fail before that starts.
    probe.on('error', () => undefined);
    source.pipe(probe);
    async function* parts(): AsyncGenerator<UploadPart> {
      const known = typeof options.patientId === 'string' || options.patientId === null;
      if (known && options.patientId)
        yield {
          kind: 'field',
          name: 'patientId',
          value: options.patientId as string,
          truncated: false,
          checked: options.patientChecked === true,
        };
      yield {
        kind: 'file',
        fieldname: 'file',
        filename: 'instance.dcm',
        mimetype: incoming.mediaType,
        stream: probe,
        ...(study
          ? { vet: (columns: DicomColumns) => (columns.dicom_study_uid === study ? null : studyMismatch()) }
          : {}),
      };
      // The upload has read the whole file before it asks for more: the head is known.
      const head = await probe.head;
      if (!known) {
        const patientId = await (options.patientId as (h: DicomHead) => Promise<string | null>)(head);
        if (patientId) yield { kind: 'field', name: 'patientId', value: patientId, truncated: false };
      }
      yield { kind: 'field', name: 'caption', value: captionOf(head), truncated: false };
    }
    try {
      const { image, duplicate } = await images.upload(actor, () => parts(), options.ip);
      return { stored: true, duplicate, image, head: await probe.head };
    } catch (error) {
      if (!(error instanceof AppError)) log.error({ err: { message: loggedMessage(error) } }, 'instance not stored');
      if (!probe.destroyed) probe.destroy();
      return { stored: false, error, head: await probe.head };
    } finally {
      // Whatever the upload left unread (a refusal before the end) is read and dropped.
      if (!source.readableEnded && !source.destroyed) {
        source.unpipe(probe);
        source.resume();
        await finished(source).catch(() => undefined);
      }
    }
  };
}
export type Ingest = ReturnType<typeof createIngest>;

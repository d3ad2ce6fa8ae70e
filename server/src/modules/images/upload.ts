import {
  type Image,
  type ImageContentType,
  ImageMessages,
  MAX_CAPTION_LENGTH,
  UPLOAD_DUPLICATE_CODE,
} from '@medshare/contracts';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Logger } from 'pino';
import { type PasswordHasher, generateCode } from '../../crypto/passwords.ts';
import {
  AppError,
  badRequest,
  errorCode,
  errorStatus,
  forbidden,
  loggedMessage,
  refusedForCertain,
  tooLarge,
  unavailable,
  unsupportedType,
} from '../../errors.ts';
import type { GroupCommit } from '../../db/group-commit.ts';
import type { EncryptedStore, SealedObject } from '../../storage/encrypted-store.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { CheckedUpload, DicomColumns, DicomEngine } from '../dicom/dicom-engine.ts';
import { METADATA_PURPOSE } from '../dicom/dicom-metadata.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import type { PatientSharePlan, PatientShares } from '../sharing/patient-share.ts';
import { isUuid } from './access-policy.ts';
import { SNIFF_BYTES, declarationMatches, declarationPlausible, detectType } from './file-type.ts';
import { presentImage } from './image-presenter.ts';
import type { ImagesRepository } from './images.repository.ts';
import type { ImageJobs } from './jobs.ts';

/** One part of a multipart upload, as the route hands it over (no HTTP types here). */
export type UploadPart =
  | {
      kind: 'field';
      name: string;
      value: string;
      truncated: boolean;
      /** A patientId the caller found an active patient's in this request (STOW: once per request, not per instance). */
      checked?: boolean;
    }
  | {
      kind: 'file';
      fieldname: string;
      filename: string;
      mimetype: string;
      stream: Readable;
      /** Refuses a DICOM file by its full parse's columns before its row (STOW's study re-check: dicom/ingest.ts). */
      vet?: (columns: DicomColumns) => AppError | null;
    };
export type OpenParts = (limits: { fileBytes: number }) => AsyncIterable<UploadPart>;

/** The stored image, or (`duplicate`) the one already stored with the same SOP Instance UID. */
export type UploadResult = { image: Image; duplicate: boolean };

/** The answer to a multipart body that is cut short or malformed (400). */
export const MALFORMED_UPLOAD = 'The upload is not a well-formed multipart/form-data body.';

/** Lets the rest of a refused file stream through the parser so that the client gets the answer. */
async function drain(stream: Readable): Promise<void> {
  if (stream.destroyed || stream.readableEnded) return;
  stream.resume();
  await finished(stream).catch(() => undefined);
}

/** JPEG, PNG and DICOM with pixel data get a thumbnail (DICOM only when a renderer is wired). */
function wantsThumbnail(file: { type: ImageContentType; dicomColumns: DicomColumns | null }): boolean {
  if (file.type === 'image/jpeg' || file.type === 'image/png') return true;
  return file.type === 'application/dicom' && file.dicomColumns?.dicom_kind === 'image';
}

interface Deps {
  repo: ImagesRepository;
  store: EncryptedStore;
  hasher: PasswordHasher;
  audit: AuditService;
  settings: SettingsService;
  log: Logger;
  jobs: Pick<ImageJobs, 'enqueueThumbnail' | 'track'>;
  /** The sharing module's rules for the patient's own share of an upload (which share, its rows, its mail). */
  patientShares: Pick<PatientShares, 'plan' | 'retryable' | 'mail' | 'knownOpen' | 'committed'>;
  /** Runs the upload's statement, committed together with others that arrive meanwhile (db/group-commit.ts). */
  commitRow: GroupCommit<{ images: ImagesRepository }>;
  /** DICOM parsing for the upload check and the metadata columns. */
  dicom?: Pick<DicomEngine, 'inspectUpload'> | undefined;
}

/**
 * Runs `work` for one key at a time in this process (no key: at once). The duplicate check and the
 * insert of one instance must not interleave with another upload of the same instance (one file
 * twice in an import, two tabs); across server instances the window stays (`docs/product.md` ›
 * Upload).
 */
export function createKeyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return async function oneAtATime<T>(key: string | null, work: () => Promise<T>): Promise<T> {
    if (key === null) return work();
    const before = tails.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
    const tail = mine.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/**
 * The upload pipeline: multipart parts streamed into encrypted storage (type sniffed, size and
 * emptiness checked on the way, DICOM inspected in a worker), then the row, the patient's share and
 * the audit rows in one statement; the thumbnail and the patient's mail follow in the background.
 */
export function createUploader(deps: Deps) {
  const { repo, store, hasher, audit, settings, log, jobs, patientShares, commitRow } = deps;
  let uploadsInFlight = 0;
  const oneAtATime = createKeyedQueue();

  /** Streams one file part into encrypted storage, checking type, size and emptiness on the way. */
  async function storeFile(
    part: Extract<UploadPart, { kind: 'file' }>,
    key: string,
    maxBytes: number,
    maxMb: number,
    owner: string,
    typed: (type: ImageContentType) => void,
  ) {
    if (!declarationPlausible(part.mimetype, part.filename)) {
      await drain(part.stream);
      throw unsupportedType(ImageMessages.invalidType);
    }
    let size = 0;
    let type: ImageContentType | null = null;
    // DICOM is parsed whole (at most max_upload_mb) once its last byte is in, so its bytes are kept.
    const kept: Buffer[] = [];
    // Set by the stream's end; a closure's assignment, so held in an object the compiler does not narrow.
    const dicomCheck: { pending: Promise<CheckedUpload> | null } = { pending: null };
    const decide = (head: Buffer) => {
      const detected = detectType(head);
      if (!detected || !declarationMatches(detected, part.mimetype, part.filename))
        throw unsupportedType(ImageMessages.invalidType);
      type = detected;
      typed(detected);
    };
    async function* inspected(): AsyncGenerator<Buffer> {
      let head: Buffer = Buffer.alloc(0);
      for await (const chunk of part.stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) throw tooLarge(ImageMessages.tooLarge(maxMb));
        if (type !== null) {
          if (type === 'application/dicom') kept.push(chunk);
          yield chunk;
          continue;
        }
        head = head.length ? Buffer.concat([head, chunk]) : chunk;
        if (head.length < SNIFF_BYTES) continue;
        decide(head);
        if (type === 'application/dicom') kept.push(head);
        yield head;
      }
      if (size === 0) throw badRequest(ImageMessages.emptyFile, [{ field: 'file', message: ImageMessages.emptyFile }]);
      if (type === null) {
        decide(head);
        if (type === 'application/dicom') kept.push(head);
        yield head;
      }
      // Every byte is in: the DICOM check runs in the worker while the blob is made durable.
      if (type === 'application/dicom' && deps.dicom) dicomCheck.pending = inspect(deps.dicom);
    }
    /** Moves the kept bytes (one fresh buffer, not a pool slice) to the DICOM worker for the upload check. */
    const inspect = (dicom: NonNullable<Deps['dicom']>) => {
      const whole = Buffer.allocUnsafeSlow(size);
      let at = 0;
      for (const piece of kept) at += piece.copy(whole, at);
      kept.length = 0;
      const check =
        at === size
          ? dicom.inspectUpload(whole, owner)
          : Promise.reject(new Error(`kept ${at} of ${size} DICOM bytes`));
      check.catch(() => undefined); // awaited once the blob is stored; never unhandled if the store fails first
      return check;
    };
    // The store digests exactly what it seals (SealedObject.sha256): the row's SHA-256.
    let stored: SealedObject;
    try {
      stored = await store.put(key, inspected());
    } catch (err) {
      await drain(part.stream);
      // The body itself broke (cut short, no closing boundary): the client's fault. The route marks
      // such errors from the stream's 'error' event, which may not have fired yet when the store,
      // reading the stream, fails with it first.
      if (err === part.stream.errored && errorStatus(err) === undefined) throw badRequest(MALFORMED_UPLOAD);
      // Our own refusals (type, size) pass as they are; a store that cannot write (disk full,
      // read-only, bucket unreachable) is an outage the client may retry, not a 500.
      if (err instanceof AppError || errorStatus(err) !== undefined) throw err;
      log.error({ err: { message: loggedMessage(err), code: errorCode(err) } }, 'blob write failed');
      throw unavailable('The file could not be stored right now. Please try again shortly.');
    }
    const detected = type as unknown as ImageContentType;
    let dicomColumns: DicomColumns | null = null;
    // The parsed metadata, sealed under the blob's own data key (PHI), stored beside the row.
    let dicomMetadata: Buffer | null = null;
    if (dicomCheck.pending) {
      try {
        const checked = await dicomCheck.pending;
        const refused = part.vet?.(checked.columns);
        if (refused) {
          checked.discard();
          throw refused;
        }
        dicomColumns = checked.columns;
        dicomMetadata = checked.withMetadata((metadata) => store.sealValue(stored, METADATA_PURPOSE, key, metadata));
      } catch (err) {
        await store.storage.delete(key).catch(() => undefined);
        throw err;
      }
    }
    return { stored, size, sha256: stored.sha256, type: detected, dicomColumns, dicomMetadata };
  }

  return {
    /** Uploads being received now (thumbnails wait for them: jobs.ts). */
    inFlight: () => uploadsInFlight,

    async upload(actor: Actor, openParts: OpenParts, ip: string | null): Promise<UploadResult> {
      if (!actor.permissions.has('image:upload')) throw forbidden();
      uploadsInFlight++;
      try {
        const { maxUploadMb } = await settings.effective();
        const maxBytes = maxUploadMb * 1024 * 1024;
        const imageId = randomUUID();
        // The patient's code hash (argon2, off the event loop) is made only for a share this upload
        // opens: a photo's share always (started while the file streams, once both the patient and
        // the type are known); a DICOM instance's only when it opens its study's share, so that the
        // instances joining it cost none (`docs/architecture.md` › Studies and DICOMweb).
        const code = generateCode();
        let codeHash: Promise<string> | null = null;
        const startHash = () => {
          codeHash ??= hasher.hash(code);
          codeHash.catch(() => undefined);
          return codeHash;
        };
        let patientNamed = false;
        let fileType: ImageContentType | null = null;
        const early = () => {
          if (patientNamed && fileType !== null && fileType !== 'application/dicom') void startHash();
        };
        const fields = new Map<string, { value: string; truncated: boolean; checked?: boolean }>();
        let file: (Awaited<ReturnType<typeof storeFile>> & { filename: string }) | null = null;
        // Once the row has committed, the blob belongs to it: a later failure must not delete it.
        let committed = false;
        /** The row's statement went to the database: from then on a failure may hide a commit. */
        let rowSent = false;
        try {
          // Busboy stops a file at max + 1 bytes, so an oversized upload is refused without reading it all.
          for await (const part of openParts({ fileBytes: maxBytes + 1 })) {
            if (part.kind === 'field') {
              fields.set(part.name, { value: part.value, truncated: part.truncated, checked: part.checked === true });
              if (part.name === 'patientId' && part.value.trim()) {
                patientNamed = true;
                early();
              }
            } else if (part.fieldname !== 'file' || file || part.filename === '') {
              await drain(part.stream);
            } else {
              file = {
                ...(await storeFile(part, imageId, maxBytes, maxUploadMb, actor.userId, (type) => {
                  fileType = type;
                  early();
                })),
                filename: part.filename,
              };
            }
          }
          if (!file) throw badRequest(ImageMessages.noFile, [{ field: 'file', message: ImageMessages.noFile }]);
          const caption = (fields.get('caption')?.value ?? '').trim();
          if (!caption)
            throw badRequest(ImageMessages.noCaption, [{ field: 'caption', message: ImageMessages.noCaption }]);
          if (caption.length > MAX_CAPTION_LENGTH || fields.get('caption')?.truncated) {
            const message = `The caption may have at most ${MAX_CAPTION_LENGTH} characters.`;
            throw badRequest(message, [{ field: 'caption', message }]);
          }
          // PostgreSQL text cannot hold U+0000 (it answered 500); the JSON routes refuse it in a hook.
          if (caption.includes('\u0000')) {
            const message = 'The caption must not contain NUL characters.';
            throw badRequest(message, [{ field: 'caption', message }]);
          }
          if (file.filename.includes('\u0000')) {
            const message = 'The file name must not contain NUL characters.';
            throw badRequest(message, [{ field: 'file', message }]);
          }
          const patientId = (fields.get('patientId')?.value ?? '').trim();
          const patient = !patientId
            ? null
            : fields.get('patientId')?.checked
              ? { id: patientId, role: 'patient' as const, active: true }
              : isUuid(patientId)
                ? await repo.findUser(patientId)
                : undefined;
          if (patient !== null && (!patient || patient.role !== 'patient' || !patient.active)) {
            throw badRequest(ImageMessages.unknownPatient, [
              { field: 'patientId', message: ImageMessages.unknownPatient },
            ]);
          }
          const stored = file;
          // `docs/product.md` › Upload: the same uploader sending the same instance for the same
          // patient again (a study imported twice, a retry whose first try was stored) gets the image
          // already stored, and nothing is stored twice.
          const sopInstanceUid = stored.dicomColumns?.dicom_sop_instance_uid ?? null;
          const instanceKey = sopInstanceUid ? `${actor.userId}|${patient?.id ?? ''}|${sopInstanceUid}` : null;
          // A DICOM instance of a study uploaded for a patient joins the patient's share of that
          // study: one mailed code opens every image of it (`docs/architecture.md` › Sharing).
          const studyUid =
            patient && stored.dicomColumns?.dicom_study_uid && stored.dicomColumns.dicom_series_uid && sopInstanceUid
              ? stored.dicomColumns.dicom_study_uid
              : null;
          const studyKey = studyUid ? `${actor.userId}|${patient!.id}|study|${studyUid}` : null;
          const study = studyUid ? { uploaderId: actor.userId, patientId: patient!.id, studyUid } : null;
          // Up to three tries: the study share this process remembers may have closed (the second
          // reads it afresh), and another server may open one meanwhile (the third joins that).
          const attempt = async (tried: number) => {
            // The patient's share: the sharing module decides which (its own, a study share opened or joined).
            const share = patient
              ? await patientShares.plan({
                  uploaderId: actor.userId,
                  patientId: patient.id,
                  imageId,
                  studyUid,
                  codeHash: startHash,
                  ip,
                  fresh: tried > 0,
                })
              : null;
            try {
              const image = await insert(share);
              return { image, share };
            } catch (err) {
              // Another server opened the patient's study share meanwhile (join it), or the one this
              // image joined was revoked or locked meanwhile (open another): plan once more.
              if (share && tried < 2 && patientShares.retryable(share, err)) return null;
              throw err;
            }
          };
          const insert = (share: PatientSharePlan | null) => {
            rowSent = true;
            return insertRow(share);
          };
          const insertRow = (share: PatientSharePlan | null) =>
            // One statement: the row, the patient's share and their audit entries commit together (with
            // other uploads' statements that arrive meanwhile: commitRow). Blob first (durable above),
            // row second: a crash between the two leaves only an orphan blob for the sweeper.
            commitRow(
              ({ images }) =>
                images.insertUpload(
                  {
                    id: imageId,
                    uploader_id: actor.userId,
                    patient_id: patient?.id ?? null,
                    caption,
                    content_type: stored.type,
                    original_name: stored.filename.split(/[\\/]/).pop()!.slice(0, 255),
                    size_bytes: stored.size,
                    sha256: stored.sha256,
                    storage_key: imageId,
                    wrapped_key: stored.stored.wrappedKey,
                    key_id: stored.stored.keyId,
                    enc_format: stored.stored.format,
                    thumbnail_status: wantsThumbnail(stored) ? 'pending' : 'none',
                    ...(stored.dicomColumns ?? {}),
                  },
                  share,
                  stored.dicomMetadata,
                  audit.inStatement(
                    [
                      {
                        userId: actor.userId,
                        action: 'image.upload',
                        table: 'images',
                        recordId: imageId,
                        ip,
                        reason: `type=${stored.type} bytes=${stored.size}`,
                      },
                      ...(share?.events ?? []),
                    ],
                    share?.auditWhen,
                  ),
                ),
              // A write that opens a patient's study share inserts its row under a unique key: alone.
              // One that joins an open one locks its row, before the audit head also in a batch
              // (db/group-commit.ts).
              {
                alone: share?.opens === 'study',
                prepare: share?.lockFirst ? ({ images }) => images.lockShareGroup(share.lockFirst!) : undefined,
                prepareKey: share?.lockFirst ?? undefined,
              },
            );
          // One upload of an instance at a time, from its duplicate check to its row; within that, the
          // study's share and row one upload of the study at a time (only that part: the duplicate
          // checks of a study's instances run side by side).
          const outcome = await oneAtATime(instanceKey, async () => {
            const duplicate = sopInstanceUid
              ? await repo.findDuplicateInstance(actor.userId, patient?.id ?? null, sopInstanceUid)
              : undefined;
            if (duplicate) return { duplicate, image: null, share: null };
            const shareAndRow = async () => {
              const result = (await attempt(0)) ?? (await attempt(1)) ?? (await attempt(2))!;
              committed = true;
              if (study && result.share) patientShares.committed(study, result.share);
              return result;
            };
            // A study's first upload opens its share alone, the others waiting; once this process has
            // seen it open, they join it side by side (their statements then commit together).
            const first =
              study && !patientShares.knownOpen(study)
                ? await oneAtATime(studyKey, async () => (patientShares.knownOpen(study) ? null : await shareAndRow()))
                : null;
            return { duplicate: null, ...(first ?? (await shareAndRow())) };
          });
          const { duplicate, image, share } = outcome;
          if (duplicate) {
            await store.storage.delete(imageId).catch(() => undefined);
            await audit.record({
              userId: actor.userId,
              action: 'image.upload',
              table: 'images',
              recordId: duplicate.id,
              ip,
              status: 'failure',
              reason: UPLOAD_DUPLICATE_CODE,
            });
            return { image: presentImage(actor, duplicate, null, duplicate.created_at), duplicate: true };
          }
          if (wantsThumbnail(stored)) jobs.enqueueThumbnail(imageId);
          // An image joining the patient's open study share needs no mail: the study's code opens it.
          if (patient && share?.opens) {
            // The upload stands if the mail cannot go out now; the uploader can revoke and share again.
            jobs.track(
              (async () => {
                const by = await repo.findUser(actor.userId);
                await patientShares.mail(share, {
                  to: await repo.contactOf(patient.id),
                  sharedBy: by ? `${by.firstname} ${by.lastname}` : 'Your provider',
                  code,
                  caption,
                  modality: stored.dicomColumns?.dicom_modality ?? null,
                });
              })(),
            );
          }
          return { image: presentImage(actor, image, null, image.created_at), duplicate: false };
        } catch (err) {
          // Not known to have committed is not known not to have: a commit whose answer was lost (a
          // cut connection, a failover) may hold the row. The blob goes when the row was never sent,
          // or the database refused it for certain and holds no row of that id (a group commit's
          // batch may have committed it before its lone retry hit the key); otherwise the sweeper
          // decides after its grace period (docs/decisions.md › Images and sharing (server), "Durability").
          if (
            file &&
            !committed &&
            (!rowSent || (refusedForCertain(err) && (await repo.hasRow(imageId).catch(() => true)) === false))
          )
            await store.storage.delete(imageId).catch(() => undefined);
          if (err instanceof AppError) {
            await audit.recordQuietly({
              userId: actor.userId,
              action: 'image.upload',
              table: 'images',
              recordId: null,
              ip,
              status: 'failure',
              reason: err.code,
            });
          }
          throw err;
        }
      } finally {
        uploadsInFlight--;
      }
    },
  };
}
export type Uploader = ReturnType<typeof createUploader>;

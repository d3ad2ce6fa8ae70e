import {
  type AccessState,
  type DicomItem,
  type Image,
  type ImageContentType,
  ImageMessages,
  ImagePaths,
  type ImageStats,
  LIST_MAX_WINDOW,
  type ListImagesQuery,
  MAX_CAPTION_LENGTH,
  type Pagination,
} from '@medshare/contracts';
import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Logger } from 'pino';
import { IntegrityError } from '../../crypto/envelope.ts';
import { type PasswordHasher, generateCode } from '../../crypto/passwords.ts';
import type { Db } from '../../db/db.ts';
import type { ShareRow } from '../../db/schema.ts';
import { AppError, badRequest, forbidden, notFound, tooLarge, unavailable, unsupportedType } from '../../errors.ts';
import { assertInWindow, windowedPagination } from '../../http/list-window.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { imageSharedMail } from '../../mail/templates.ts';
import type { EncryptedStore, StoredObject } from '../../storage/encrypted-store.ts';
import { BlobNotFoundError } from '../../storage/storage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/auth.service.ts';
import type { DicomColumns, DicomEngine } from '../dicom/dicom-engine.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { shareState } from '../sharing/share-state.ts';
import { SNIFF_BYTES, contentDisposition, declarationMatches, declarationPlausible, detectType } from './file-type.ts';
import {
  type ImageWithPeople,
  type ListEntry,
  type ShareWithCreator,
  createImagesRepository,
} from './images.repository.ts';
import { sweepOrphanBlobs } from './sweeper.ts';
import { createThumbnailer } from './thumbnails.ts';

/** One part of a multipart upload, as the route hands it over (no HTTP types here). */
export type UploadPart =
  | { kind: 'field'; name: string; value: string; truncated: boolean }
  | { kind: 'file'; fieldname: string; filename: string; mimetype: string; stream: Readable };
export type OpenParts = (limits: { fileBytes: number }) => AsyncIterable<UploadPart>;

export type ContentVariant = 'content' | 'thumbnail';

export interface ContentAnswer {
  stream: Readable;
  contentType: string;
  size: number;
  disposition: string;
}

interface Deps {
  db: Db;
  store: EncryptedStore;
  hasher: PasswordHasher;
  mailer: Mailer;
  audit: AuditService;
  settings: SettingsService;
  log: Logger;
  publicUrl: string;
  sweep: { graceMinutes: number; intervalMinutes: number };
  /** DICOM parsing (upload checks, metadata columns) and first-frame rendering for thumbnails. */
  dicom?: Pick<DicomEngine, 'inspectUpload' | 'render'>;
  /** Rows of a list reachable by offset paging and counted (LIST_MAX_WINDOW; smaller in tests). */
  listWindow?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** The list item's DICOM attributes: never PHI; UIDs only for viewers of the content. */
function dicomItem(image: ImageWithPeople, content: boolean): DicomItem {
  return {
    kind: image.dicom_kind ?? 'document',
    modality: image.dicom_modality,
    bodyPart: image.dicom_body_part,
    studyDate: image.dicom_study_date,
    rows: image.dicom_rows,
    columns: image.dicom_columns,
    frames: image.dicom_frames,
    bitsAllocated: image.dicom_bits_allocated,
    bitsStored: image.dicom_bits_stored,
    photometricInterpretation: image.dicom_photometric,
    transferSyntaxUid: image.dicom_transfer_syntax,
    deidentified: image.deidentified,
    studyInstanceUid: content ? image.dicom_study_uid : null,
    seriesInstanceUid: content ? image.dicom_series_uid : null,
    sopInstanceUid: content ? image.dicom_sop_instance_uid : null,
  };
}

export function createImagesService(deps: Deps) {
  const { db, store, hasher, mailer, audit, settings, log, publicUrl } = deps;
  const repo = createImagesRepository(db);
  const listWindow = deps.listWindow ?? LIST_MAX_WINDOW;
  let uploadsInFlight = 0;
  const thumbnails = createThumbnailer({
    repo,
    store,
    log,
    renderDicom: deps.dicom?.render,
    deferWhile: () => uploadsInFlight > 0,
  });
  const background = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    const t = p
      .catch((err: unknown) => log.error({ err: { message: (err as Error).message } }, 'background task failed'))
      .finally(() => background.delete(t));
    background.add(t);
  };

  const canSeeEverything = (actor: Actor) => actor.permissions.has('image:view_all');

  /** What the viewer may do with an image: null when they may not know it exists. */
  function accessOf(
    actor: Actor,
    image: { uploader_id: string },
    share: Pick<ShareRow, 'revoked_at' | 'expires_at' | 'verified_at' | 'locked_at'> | null | undefined,
  ) {
    if (image.uploader_id === actor.userId || canSeeEverything(actor))
      return { state: 'owner' as AccessState, content: true, manage: true };
    if (!share) return null;
    const state = shareState(share);
    return { state: state as AccessState, content: state === 'verified', manage: false };
  }

  function present(actor: Actor, image: ImageWithPeople, share: ShareWithCreator | null, sortAt: Date): Image {
    const uploadedByMe = image.uploader_id === actor.userId;
    const access = accessOf(actor, image, share) ?? { state: 'revoked' as AccessState, content: false };
    return {
      id: image.id,
      caption: image.caption,
      contentType: image.content_type,
      sizeBytes: image.size_bytes,
      isShared: !uploadedByMe,
      isVerified: access.content,
      uploadedByMe,
      sharedBy: share
        ? { id: share.created_by, firstname: share.creator_firstname, lastname: share.creator_lastname }
        : { id: image.uploader_id, firstname: image.uploader_firstname, lastname: image.uploader_lastname },
      patient: image.patient_id
        ? { id: image.patient_id, firstname: image.patient_firstname ?? '', lastname: image.patient_lastname ?? '' }
        : null,
      createdAt: sortAt.toISOString(),
      sharingId: share?.id ?? null,
      accessState: uploadedByMe || !share ? 'owner' : shareState(share),
      expiresAt: share?.expires_at?.toISOString() ?? null,
      revokedAt: share?.revoked_at?.toISOString() ?? null,
      thumbnailStatus: image.thumbnail_status,
      thumbnailUrl: access.content && image.thumbnail_status === 'ready' ? ImagePaths.thumbnail(image.id) : null,
      image_url: access.content ? ImagePaths.content(image.id) : null,
      ...(image.content_type === 'application/dicom' && image.dicom_kind
        ? { dicom: dicomItem(image, access.content) }
        : {}),
    };
  }

  async function presentPage(actor: Actor, entries: ListEntry[]): Promise<Image[]> {
    const [images, shares] = await Promise.all([
      repo.imagesByIds([...new Set(entries.map((e) => e.image_id))]),
      repo.sharesByIds(entries.flatMap((e) => (e.share_id ? [e.share_id] : []))),
    ]);
    const imageById = new Map(images.map((i) => [i.id, i]));
    const shareById = new Map(shares.map((s) => [s.id, s]));
    return entries.flatMap((e) => {
      const image = imageById.get(e.image_id);
      if (!image) return [];
      return [present(actor, image, e.share_id ? (shareById.get(e.share_id) ?? null) : null, new Date(e.sort_at))];
    });
  }

  /** Streams one file part into encrypted storage, checking type, size and emptiness on the way. */
  async function storeFile(part: Extract<UploadPart, { kind: 'file' }>, key: string, maxBytes: number, maxMb: number) {
    if (!declarationPlausible(part.mimetype, part.filename)) {
      await drain(part.stream);
      throw unsupportedType(ImageMessages.invalidType);
    }
    const hash = createHash('sha256');
    let size = 0;
    let type: ImageContentType | null = null;
    // DICOM is parsed whole (at most max_upload_mb) once its last byte is in, so its bytes are kept.
    const kept: Buffer[] = [];
    // Set by the stream's end; a closure's assignment, so held in an object the compiler does not narrow.
    const dicomCheck: { pending: Promise<DicomColumns> | null } = { pending: null };
    const decide = (head: Buffer) => {
      const detected = detectType(head);
      if (!detected || !declarationMatches(detected, part.mimetype, part.filename))
        throw unsupportedType(ImageMessages.invalidType);
      type = detected;
    };
    async function* inspected(): AsyncGenerator<Buffer> {
      let head: Buffer = Buffer.alloc(0);
      for await (const chunk of part.stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) throw tooLarge(ImageMessages.tooLarge(maxMb));
        hash.update(chunk);
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
        at === size ? dicom.inspectUpload(whole) : Promise.reject(new Error(`kept ${at} of ${size} DICOM bytes`));
      check.catch(() => undefined); // awaited once the blob is stored; never unhandled if the store fails first
      return check;
    };
    let stored: StoredObject;
    try {
      stored = await store.put(key, inspected());
    } catch (err) {
      await drain(part.stream);
      // The body itself broke (cut short, no closing boundary): the client's fault. The route marks
      // such errors from the stream's 'error' event, which may not have fired yet when the store,
      // reading the stream, fails with it first.
      if (err === part.stream.errored && (err as { statusCode?: number }).statusCode === undefined)
        throw badRequest(MALFORMED_UPLOAD);
      // Our own refusals (type, size) pass as they are; a store that cannot write (disk full,
      // read-only, bucket unreachable) is an outage the client may retry, not a 500.
      if (err instanceof AppError || (err as { statusCode?: number }).statusCode !== undefined) throw err;
      log.error(
        { err: { message: (err as Error).message, code: (err as { code?: string }).code } },
        'blob write failed',
      );
      throw unavailable('The file could not be stored right now. Please try again shortly.');
    }
    const detected = type as unknown as ImageContentType;
    let dicomColumns: DicomColumns | null = null;
    if (dicomCheck.pending) {
      try {
        dicomColumns = await dicomCheck.pending;
      } catch (err) {
        await store.storage.delete(key).catch(() => undefined);
        throw err;
      }
    }
    return { stored, size, sha256: hash.digest('hex'), type: detected, dicomColumns };
  }

  async function mailShare(
    to: { email: string; firstname: string },
    sharedBy: string,
    sharingId: string,
    code: string,
    expiresAt: Date | null,
  ) {
    const mail = imageSharedMail(to.firstname, sharedBy, sharingId, code, expiresAt, `${publicUrl}/view-images`);
    await mailer.send({ to: to.email, ...mail, devCode: code });
  }

  async function loadForAccess(actor: Actor, id: string) {
    if (!UUID.test(id)) return null;
    const image = await repo.getLive(id);
    if (!image) return null;
    const share = image.uploader_id === actor.userId ? undefined : await repo.shareTo(image.id, actor.userId);
    const access = accessOf(actor, image, share);
    return access ? { image, share, access } : null;
  }

  let sweepTimer: NodeJS.Timeout | null = null;
  let firstTick: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;
  const runSweep = (graceMs: number) => {
    sweeping ??= sweepOrphanBlobs({ storage: store.storage, repo, graceMs })
      .then((r) => {
        if (r.removed || r.partials) log.info(r, 'storage sweep removed orphan blobs');
        return r;
      })
      .finally(() => {
        sweeping = null;
      });
    return sweeping as Promise<Awaited<ReturnType<typeof sweepOrphanBlobs>>>;
  };

  return {
    async upload(actor: Actor, openParts: OpenParts, ip: string | null): Promise<Image> {
      if (!actor.permissions.has('image:upload')) throw forbidden();
      uploadsInFlight++;
      try {
        const { maxUploadMb } = await settings.effective();
        const maxBytes = maxUploadMb * 1024 * 1024;
        const imageId = randomUUID();
        // The patient's code is hashed as soon as a patient is named, while the file streams (argon2 runs off the event loop).
        const code = generateCode();
        let codeHash: Promise<string> | null = null;
        const startHash = () => {
          codeHash ??= hasher.hash(code);
          codeHash.catch(() => undefined);
          return codeHash;
        };
        const fields = new Map<string, { value: string; truncated: boolean }>();
        let file: (Awaited<ReturnType<typeof storeFile>> & { filename: string }) | null = null;
        // Once the row has committed, the blob belongs to it: a later failure must not delete it.
        let committed = false;
        try {
          // Busboy stops a file at max + 1 bytes, so an oversized upload is refused without reading it all.
          for await (const part of openParts({ fileBytes: maxBytes + 1 })) {
            if (part.kind === 'field') {
              fields.set(part.name, { value: part.value, truncated: part.truncated });
              if (part.name === 'patientId' && part.value.trim()) startHash();
            } else if (part.fieldname !== 'file' || file || part.filename === '') {
              await drain(part.stream);
            } else {
              file = { ...(await storeFile(part, imageId, maxBytes, maxUploadMb)), filename: part.filename };
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
          const patient = patientId ? (UUID.test(patientId) ? await repo.findUser(patientId) : undefined) : null;
          if (patient !== null && (!patient || patient.role !== 'patient' || !patient.active)) {
            throw badRequest(ImageMessages.unknownPatient, [
              { field: 'patientId', message: ImageMessages.unknownPatient },
            ]);
          }
          const stored = file;
          const shareId = randomUUID();
          const hashed = patient ? await startHash() : null;
          // Blob first (durable above), row second: a crash between the two leaves only an orphan blob for the sweeper.
          const share =
            patient && hashed
              ? {
                  id: shareId,
                  image_id: imageId,
                  created_by: actor.userId,
                  created_for: patient.id,
                  code_hash: hashed,
                  expires_at: null,
                  is_patient_share: true,
                }
              : null;
          // One statement: the row, the patient's share and their audit entries commit together, in one round trip.
          const image = await repo.insertUpload(
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
            audit.inStatement([
              {
                userId: actor.userId,
                action: 'image.upload',
                table: 'images',
                recordId: imageId,
                ip,
                reason: `type=${stored.type} bytes=${stored.size}`,
              },
              ...(share
                ? [
                    {
                      userId: actor.userId,
                      action: 'share.create',
                      table: 'shares',
                      recordId: shareId,
                      ip,
                      reason: `image=${imageId} patient share`,
                    },
                  ]
                : []),
            ]),
          );
          committed = true;
          if (wantsThumbnail(stored)) thumbnails.enqueue(imageId);
          if (patient) {
            // The upload stands if the mail cannot go out now; the uploader can revoke and share again.
            track(
              (async () => {
                const who = await repo.contactOf(patient.id);
                const by = await repo.findUser(actor.userId);
                await mailShare(who, by ? `${by.firstname} ${by.lastname}` : 'Your provider', shareId, code, null);
              })(),
            );
          }
          return present(actor, image, null, image.created_at);
        } catch (err) {
          if (file && !committed) await store.storage.delete(imageId).catch(() => undefined);
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

    async list(
      actor: Actor,
      scope: 'mine' | 'shared' | 'all',
      query: ListImagesQuery,
    ): Promise<{ items: Image[]; pagination: Pagination }> {
      const offset = (query.page - 1) * query.limit;
      let result;
      if (scope === 'all') {
        if (!canSeeEverything(actor)) throw forbidden();
        assertInWindow(offset, 'images', 'older images are reached through their uploader or patient', listWindow);
        result = await repo.listAll(query.limit, offset, listWindow + 1);
      } else {
        assertInWindow(offset, 'images', 'older images stay reachable by their id', listWindow);
        const parts = { own: scope === 'mine', shared: true };
        result = await repo.listForViewer(actor.userId, parts, query.limit, offset, listWindow + 1);
      }
      return {
        items: await presentPage(actor, result.entries),
        pagination: windowedPagination(query.page, query.limit, result.total, listWindow),
      };
    },

    /** Counts for the dashboard, over what the actor sees in their lists. */
    async stats(actor: Actor): Promise<ImageStats> {
      if (canSeeEverything(actor)) {
        const { total, shared } = await repo.countAll();
        return { totalImages: total, sharedImages: shared };
      }
      const [all, shared] = await Promise.all([
        repo.listForViewer(actor.userId, { own: true, shared: true }, 0, 0, null),
        repo.listForViewer(actor.userId, { own: false, shared: true }, 0, 0, null),
      ]);
      return { totalImages: all.total, sharedImages: shared.total };
    },

    /** Decrypted bytes for a viewer allowed to see them; everyone else gets 404. Audited either way. */
    async openContent(actor: Actor, id: string, variant: ContentVariant, download: boolean): Promise<ContentAnswer> {
      const action = variant === 'thumbnail' ? 'image.thumbnail' : download ? 'image.download' : 'image.view';
      const found = await loadForAccess(actor, id);
      const image = found?.access.content ? found.image : null;
      const thumbReady =
        image?.thumbnail_status === 'ready' &&
        image.thumb_storage_key &&
        image.thumb_wrapped_key &&
        image.thumb_key_id &&
        image.thumb_sha256;
      if (!image || (variant === 'thumbnail' && !thumbReady)) {
        await audit.recordQuietly({
          userId: actor.userId,
          action,
          table: 'images',
          recordId: UUID.test(id) ? id : null,
          ip: actor.ip,
          status: 'failure',
          reason: image ? 'no thumbnail' : 'not visible',
        });
        throw notFound(image ? 'This image has no thumbnail' : 'Image not found');
      }
      const object =
        variant === 'thumbnail'
          ? {
              key: image.thumb_storage_key!,
              wrapped: { wrappedKey: image.thumb_wrapped_key!, keyId: image.thumb_key_id! },
              expected: { sha256: image.thumb_sha256!, size: image.thumb_size_bytes! },
              type: image.thumb_content_type ?? 'image/webp',
            }
          : {
              key: image.storage_key,
              wrapped: { wrappedKey: image.wrapped_key, keyId: image.key_id },
              expected: { sha256: image.sha256, size: image.size_bytes },
              type: image.content_type,
            };
      let stream: Readable;
      try {
        stream = await store.open(object.key, object.wrapped, object.expected);
      } catch (err) {
        if (err instanceof IntegrityError || err instanceof BlobNotFoundError) {
          log.error({ imageId: image.id, problem: err.message }, 'stored image cannot be read');
          await audit.recordQuietly({
            userId: actor.userId,
            action,
            table: 'images',
            recordId: image.id,
            ip: actor.ip,
            status: 'failure',
            reason: 'integrity',
          });
          throw new AppError(
            500,
            'integrity_failed',
            'The stored file could not be read or failed its integrity check.',
          );
        }
        if (err instanceof AppError) throw err;
        // The store itself is away (S3 down, I/O error): say so rather than a bare 500.
        log.error({ imageId: image.id, problem: (err as Error).message }, 'blob store read failed');
        throw unavailable('The file store is unavailable. Please try again shortly.');
      }
      stream.once('error', (err) =>
        log.error(
          { imageId: image.id, problem: err.message },
          'stored image failed its integrity check while streaming',
        ),
      );
      try {
        await audit.record({ userId: actor.userId, action, table: 'images', recordId: image.id, ip: actor.ip });
      } catch (err) {
        // No audit row, no PHI: and the opened file handle or S3 socket must not leak.
        stream.destroy();
        throw err;
      }
      const stem = `medshare-${image.id.slice(0, 8)}`;
      return {
        stream,
        contentType: object.type,
        size: object.expected.size,
        disposition:
          variant === 'thumbnail'
            ? `inline; filename="${stem}-thumbnail.webp"`
            : contentDisposition(download ? 'attachment' : 'inline', image.original_name, image.content_type, stem),
      };
    },

    /** The uploader or an admin: revokes every share, then removes the blobs. */
    async deleteImage(actor: Actor, id: string): Promise<void> {
      const found = await loadForAccess(actor, id);
      if (!found) throw notFound('Image not found');
      if (!found.access.manage || !(actor.permissions.has('image:delete') || canSeeEverything(actor)))
        throw forbidden('Only the uploader or an administrator can delete this image');
      const { image } = found;
      await db.transaction().execute((trx) => createImagesRepository(trx).markDeleted(image.id, new Date()));
      // The row no longer points at the blobs: if removing them fails now, the sweeper removes them later.
      for (const key of [image.storage_key, image.thumb_storage_key]) {
        if (key)
          await store.storage
            .delete(key)
            .catch((err: unknown) =>
              log.warn({ imageId: image.id, problem: (err as Error).message }, 'blob removal deferred to the sweeper'),
            );
      }
      await audit.record({
        userId: actor.userId,
        action: 'image.delete',
        table: 'images',
        recordId: image.id,
        ip: actor.ip,
      });
    },

    /**
     * For the sharing module: an image the actor manages (uploader or admin). 404 when the actor
     * may not know it exists, 403 when they see it through a share but may not manage it.
     */
    async imageToManage(
      actor: Actor,
      id: string,
    ): Promise<{ id: string; uploaderId: string; patientId: string | null }> {
      const found = await loadForAccess(actor, id);
      if (!found) throw notFound('Image not found');
      if (!found.access.manage)
        throw forbidden('Only the uploader or an administrator can manage the shares of this image');
      return { id: found.image.id, uploaderId: found.image.uploader_id, patientId: found.image.patient_id };
    },

    /**
     * For the DICOM module: the image and what the actor may do with it (null when the actor may
     * not know it exists). `content`: may read the bytes.
     */
    async accessTo(
      actor: Actor,
      id: string,
    ): Promise<{ image: ImageWithPeople; content: boolean; manage: boolean } | null> {
      const found = await loadForAccess(actor, id);
      return found ? { image: found.image, content: found.access.content, manage: found.access.manage } : null;
    },

    /** For the DICOM module: make the thumbnail of a row it inserted (a de-identified copy). */
    enqueueThumbnail: (id: string) => thumbnails.enqueue(id),

    /** A user as sharing needs them (role, whether active), or undefined. */
    userBrief: (id: string) => (UUID.test(id) ? repo.findUser(id) : Promise.resolve(undefined)),
    contactOf: (id: string) => repo.contactOf(id),

    /** Users-module hook, inside the deleting transaction: shares to a deleted account end; their uploads stay (they are patients' records). */
    onUserDeleted: async (event: { userId: string }, trx: Db): Promise<void> => {
      await createImagesRepository(trx).revokeSharesTo(event.userId, new Date());
    },

    /** Dashboard: uploads per calendar day in the display time zone. */
    uploadsPerDay: (q: { from: string; to: string; timeZone: string }) => repo.uploadsPerDay(q.from, q.to, q.timeZone),

    /** Readiness: throws when blob storage cannot be reached. */
    checkStorage: () => store.storage.check(),

    /** Removes blobs no live row points at, older than the grace period. */
    sweep: (graceMs = deps.sweep.graceMinutes * 60_000) => runSweep(graceMs),

    /** Sweep once now and every interval; resume thumbnails a crash interrupted. */
    startJobs() {
      const tick = () => {
        track(runSweep(deps.sweep.graceMinutes * 60_000));
        track(thumbnails.resumePending());
      };
      firstTick = setTimeout(tick, 1_000);
      firstTick.unref();
      sweepTimer = setInterval(tick, deps.sweep.intervalMinutes * 60_000);
      sweepTimer.unref();
    },

    /** Waits for thumbnails and mails started in the background (tests, shutdown). */
    async idle(): Promise<void> {
      while (background.size || thumbnails.busy()) {
        await Promise.all([...background, thumbnails.idle()]);
      }
    },

    async close(): Promise<void> {
      if (firstTick) clearTimeout(firstTick);
      if (sweepTimer) clearInterval(sweepTimer);
      await this.idle();
      await sweeping;
    },
  };
}
export type ImagesService = ReturnType<typeof createImagesService>;

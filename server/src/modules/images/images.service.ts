import {
  type AuditAction,
  ExternalShareMessages,
  type Image,
  type ImageStats,
  LIST_MAX_WINDOW,
  type ListImagesQuery,
  type Pagination,
} from '@medshare/contracts';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { IntegrityError } from '../../crypto/envelope.ts';
import type { PasswordHasher } from '../../crypto/passwords.ts';
import type { Db } from '../../db/db.ts';
import type { ImageRow } from '../../db/schema.ts';
import { createGroupCommit } from '../../db/group-commit.ts';
import { AppError, forbidden, loggedMessage, notFound, unavailable } from '../../errors.ts';
import { assertInWindow, windowedPagination } from '../../http/list-window.ts';
import type { EncryptedStore } from '../../storage/encrypted-store.ts';
import { freeBuffer } from '../../storage/free-buffer.ts';
import type { StoredContent } from '../../http/content-headers.ts';
import { BlobNotFoundError } from '../../storage/storage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { DicomEngine } from '../dicom/dicom-engine.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import type { PatientShares } from '../sharing/patient-share.ts';
import { type Access, accessOf, canSeeEverything, isUuid } from './access-policy.ts';
import { type AccessEnded, type ContentAccessCache } from './content-access.ts';
import { contentDisposition } from './file-type.ts';
import { presentImage } from './image-presenter.ts';
import {
  type ContentSource,
  type ImageWithPeople,
  type ListEntry,
  type ImagesRepository,
  createImagesRepository,
} from './images.repository.ts';
import { createImageJobs } from './jobs.ts';
import { type OpenParts, type UploadResult, createUploader } from './upload.ts';

export type ContentVariant = 'content' | 'thumbnail';

/**
 * Objects up to this size are read, decrypted and checked whole before their answer starts (one
 * read): thumbnails and most single DICOM instances. The stream machinery of a decrypting stream cost
 * a third of a read's main-thread CPU (bench/RESULTS.md › Content reads of small files whole), and a
 * file that fails its check is refused before any byte of it leaves. Larger ones stream.
 */
export const WHOLE_READ_MAX_BYTES = 1024 * 1024;

/** The row names a made thumbnail with everything its read needs. */
const thumbnailReady = (image: ContentSource): boolean =>
  image.thumbnail_status === 'ready' &&
  !!(image.thumb_storage_key && image.thumb_wrapped_key && image.thumb_key_id && image.thumb_sha256);

/** A stored object's bytes for one answer (sent by http/content-headers.ts › sendStoredContent). */
export type ContentAnswer = StoredContent;

/**
 * A whole read's plaintext, already checked whole (every tag, size and SHA-256: readPieces), as the
 * answer's body: its one chunk, or its chunks in turn. Not joined into one buffer: that copy was half
 * of what a read allocated outside V8's heap, whose growth is what starts its full collections
 * (docs/decisions.md › A content read's file and answer).
 */
function bodyOfChecked(pieces: Buffer[]): Buffer | Readable {
  if (pieces.length <= 1) return pieces[0] ?? Buffer.alloc(0);
  return new Readable({
    read() {
      for (const piece of pieces) this.push(piece);
      this.push(null);
    },
  });
}

interface Deps {
  db: Db;
  store: EncryptedStore;
  hasher: PasswordHasher;
  audit: AuditService;
  settings: SettingsService;
  log: Logger;
  sweep: { graceMinutes: number; intervalMinutes: number };
  /** DICOM parsing (upload checks, metadata columns) and the first frame for thumbnails. */
  dicom?: Pick<DicomEngine, 'inspectUpload' | 'thumbnail'>;
  /** The sharing module's port for the patient's own share of an upload (sharing/patient-share.ts). */
  patientShares: Pick<PatientShares, 'plan' | 'retryable' | 'mail' | 'knownOpen' | 'committed'>;
  /** Rows of a list reachable by offset paging and counted (LIST_MAX_WINDOW; smaller in tests). */
  listWindow?: number;
  /** Content reads that opened the bytes a moment ago (content-access.ts); without it every read asks the database. */
  contentAccess?: ContentAccessCache;
  /** Access to images ended (an image deleted): called after the commit; publishes the `access` event. */
  onAccessEnded?: (ended: AccessEnded) => void;
}

/**
 * What the routes and the other modules call. The parts: access-policy.ts (who sees what),
 * image-presenter.ts (the card), upload.ts (the upload pipeline), jobs.ts (thumbnails, sweeper).
 */
export function createImagesService(deps: Deps) {
  const { db, store, audit, log, contentAccess } = deps;
  const repo = createImagesRepository(db);
  /** A change and its audit rows, committed together (docs/security.md › Audit trail). */
  const transaction = audit.transactor(db, (trx) => ({ images: createImagesRepository(trx) }));
  const listWindow = deps.listWindow ?? LIST_MAX_WINDOW;
  const jobs = createImageJobs({
    repo,
    store,
    log,
    sweep: deps.sweep,
    renderDicom: deps.dicom?.thumbnail,
    uploadsInFlight: () => uploader.inFlight() > 0,
  });
  const uploader = createUploader({
    ...deps,
    repo,
    jobs,
    commitRow: createGroupCommit<{ images: ImagesRepository }>(transaction, { images: repo }),
  });

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
      return [presentImage(actor, image, e.share_id ? (shareById.get(e.share_id) ?? null) : null, new Date(e.sort_at))];
    });
  }

  async function loadForAccess(actor: Actor, id: string): Promise<{ image: ImageWithPeople; access: Access } | null> {
    if (!isUuid(id)) return null;
    const found = await repo.getLiveForViewer(id, actor.userId);
    if (!found) return null;
    const { image, share } = found;
    const access = accessOf(actor, image, share);
    return access ? { image, access } : null;
  }

  /**
   * The image whose bytes the viewer may read now, or null: its row from memory when their read of it
   * opened the bytes a moment ago, nothing ended access since and it still opens them
   * (content-access.ts), else from the database, kept when it opens the bytes. Either way decided
   * now, by the same rule (accessOf). A held row without the thumbnail a thumbnail read needs is read
   * again.
   */
  async function readableImage(actor: Actor, id: string, variant: ContentVariant): Promise<ContentSource | null> {
    const now = Date.now();
    // Rows are kept under the id as the database spells it (lower case).
    const held = contentAccess?.get(actor.userId, id.toLowerCase(), now);
    // Only ever a yes: a held row that would refuse now (expired, permissions gone) is read again.
    if (
      held &&
      accessOf(actor, held.image, held.share)?.content &&
      (variant === 'content' || thumbnailReady(held.image))
    )
      return held.image;
    const readAt = contentAccess?.epoch() ?? 0;
    const found = await repo.getContentForViewer(id, actor.userId);
    if (!found || !accessOf(actor, found.image, found.share)?.content) return null;
    // Its age counts from before the query, so no row vouches for more than maxAgeMs after it was asked.
    contentAccess?.keep({ viewerId: actor.userId, ...found }, readAt, now);
    return found.image;
  }

  /** Opens an image's bytes (or thumbnail) for whoever the caller decided may see them; audited first. */
  async function openBytes(
    image: ContentSource | null,
    requestedId: string | null,
    variant: ContentVariant,
    download: boolean,
    event: { userId: string | null; action: AuditAction; ip: string | null; reason?: string },
  ): Promise<ContentAnswer> {
    const { userId, action, ip } = event;
    /** The read's failure row: the caller's reason (a link's, a share's) and why. */
    const refused = (recordId: string | null, why: string) =>
      audit.recordQuietly({
        userId,
        action,
        table: 'images',
        recordId,
        ip,
        status: 'failure',
        reason: [event.reason, why].filter(Boolean).join('; '),
      });
    if (!image || (variant === 'thumbnail' && !thumbnailReady(image))) {
      await refused(requestedId, image ? 'no thumbnail' : 'not visible');
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
    let body: Buffer | Readable;
    let owned: Buffer[] = [];
    try {
      if (object.expected.size <= WHOLE_READ_MAX_BYTES) {
        owned = await store.readPieces(object.key, object.wrapped, object.expected);
        body = bodyOfChecked(owned);
      } else body = await store.open(object.key, object.wrapped, object.expected);
    } catch (err) {
      if (err instanceof BlobNotFoundError && !(await repo.isLive(image.id))) {
        // Deleted since its row was read: gone, as for a read a moment later.
        await refused(image.id, 'deleted meanwhile');
        throw notFound('Image not found');
      }
      if (err instanceof IntegrityError || err instanceof BlobNotFoundError) {
        log.error({ imageId: image.id, problem: err.message }, 'stored image cannot be read');
        await refused(image.id, 'integrity');
        throw new AppError(500, 'integrity_failed', 'The stored file could not be read or failed its integrity check.');
      }
      if (err instanceof AppError) throw err;
      // The store itself is away (S3 down, I/O error): say so rather than a bare 500.
      log.error({ imageId: image.id, problem: loggedMessage(err) }, 'blob store read failed');
      throw unavailable('The file store is unavailable. Please try again shortly.');
    }
    if (!Buffer.isBuffer(body))
      body.once('error', (err) =>
        log.error(
          { imageId: image.id, problem: err.message },
          'stored image failed its integrity check while streaming',
        ),
      );
    try {
      await audit.record({ userId, action, table: 'images', recordId: image.id, ip, reason: event.reason ?? null });
    } catch (err) {
      // No audit row, no PHI: and the opened file handle or S3 socket must not leak.
      if (!Buffer.isBuffer(body)) body.destroy();
      for (const piece of owned) freeBuffer(piece);
      throw err;
    }
    const stem = `medshare-${image.id.slice(0, 8)}`;
    return {
      body,
      owned,
      contentType: object.type,
      size: object.expected.size,
      disposition:
        variant === 'thumbnail'
          ? `inline; filename="${stem}-thumbnail.${object.type === 'image/webp' ? 'webp' : 'jpg'}"`
          : contentDisposition(download ? 'attachment' : 'inline', image.original_name, image.content_type, stem),
    };
  }

  return {
    upload: (actor: Actor, openParts: OpenParts, ip: string | null): Promise<UploadResult> =>
      uploader.upload(actor, openParts, ip),

    async list(
      actor: Actor,
      scope: 'mine' | 'shared' | 'all',
      query: Pick<ListImagesQuery, 'page' | 'limit'> & { kind?: ListImagesQuery['kind'] },
    ): Promise<{ items: Image[]; pagination: Pagination }> {
      const offset = (query.page - 1) * query.limit;
      const filesOnly = query.kind === 'files';
      let result;
      if (scope === 'all') {
        if (!canSeeEverything(actor)) throw forbidden();
        assertInWindow(offset, 'images', 'older images are reached through their uploader or patient', listWindow);
        result = await repo.listAll(query.limit, offset, listWindow + 1, filesOnly);
      } else {
        assertInWindow(offset, 'images', 'older images stay reachable by their id', listWindow);
        const parts = { own: scope === 'mine', shared: true, filesOnly };
        result = await repo.listForViewer(actor.userId, parts, query.limit, offset, listWindow + 1);
      }
      const items = await presentPage(actor, result.entries);
      // A page names patients and uploaders beside captions: a read of other people's data.
      await audit.record({
        userId: actor.userId,
        action: 'images.list.read',
        table: 'images',
        recordId: null,
        ip: actor.ip,
        reason: `scope=${scope}${filesOnly ? ' kind=files' : ''} page=${query.page} listed=${items.length}`,
      });
      return { items, pagination: windowedPagination(query.page, query.limit, result.total, listWindow) };
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
      // The content read's own narrow query, or its row held a moment.
      const image = isUuid(id) ? await readableImage(actor, id, variant) : null;
      return openBytes(image, isUuid(id) ? id : null, variant, download, {
        userId: actor.userId,
        action,
        ip: actor.ip,
      });
    },

    /**
     * For the external-shares module: the bytes of an image a link holder's share opens (that module
     * decided it), audited with the event it hands in before any byte leaves.
     */
    async openForLinkHolder(
      id: string,
      variant: ContentVariant,
      download: boolean,
      event: { action: AuditAction; ip: string | null; reason: string },
    ): Promise<ContentAnswer> {
      const image = isUuid(id) ? ((await repo.getLive(id)) ?? null) : null;
      return openBytes(image, isUuid(id) ? id : null, variant, download, { userId: null, ...event });
    },

    /** For the external-shares module: live images by id (the shared ones, to present to a link holder). */
    liveByIds: async (ids: string[]): Promise<ImageRow[]> =>
      (await repo.imagesByIds(ids.filter(isUuid))).filter((i) => i.deleted_at === null),

    /**
     * For the external-shares module: an image its uploader, or its patient once they see its content,
     * may share by link (`docs/architecture.md` › Sharing with someone without an account). 404 when the
     * actor may not know it exists, 403 when they see it but it is not theirs.
     */
    async ownImage(actor: Actor, id: string): Promise<ImageRow> {
      const found = await loadForAccess(actor, id);
      if (!found?.access.content) throw notFound('Image not found');
      const { image } = found;
      const owns = image.uploader_id === actor.userId || image.patient_id === actor.userId;
      if (!owns || image.deidentified) throw forbidden(ExternalShareMessages.notOwner);
      return image;
    },

    /** The same for a study: its images the actor uploaded, or that are theirs and open to them. */
    async ownStudyImages(actor: Actor, studyUid: string, max: number): Promise<ImageRow[]> {
      const rows = await repo.ownedInStudy(actor.userId, studyUid, max + 1);
      const open: ImageRow[] = [];
      for (const image of rows) {
        if (image.uploader_id === actor.userId) open.push(image);
        else if (accessOf(actor, image, await repo.shareTo(image.id, actor.userId))?.content) open.push(image);
      }
      return open;
    },

    /** The uploader or an admin: revokes every share of the image and of its de-identified copies, then removes the blobs. */
    async deleteImage(actor: Actor, id: string): Promise<void> {
      const found = await loadForAccess(actor, id);
      if (!found) throw notFound('Image not found');
      if (!found.access.manage || !(actor.permissions.has('image:delete') || canSeeEverything(actor)))
        throw forbidden('Only the uploader or an administrator can delete this image');
      const { image } = found;
      const deleted = await transaction.run(async ({ images, audit: auditInTx }) => {
        const rows = await images.markDeleted(image.id, new Date());
        // Deleted by a request that committed since the read above (a double click): that one is recorded.
        if (rows.length === 0) throw notFound('Image not found');
        await auditInTx(
          rows.map((row) => ({
            userId: actor.userId,
            action: 'image.delete' as const,
            table: 'images',
            recordId: row.id,
            ip: actor.ip,
            reason: row.id === image.id ? null : `de-identified copy of ${image.id}`,
          })),
        );
        return rows;
      });
      deps.onAccessEnded?.({ userIds: [], imageIds: deleted.map((row) => row.id) });
      // The rows no longer point at the blobs: if removing them fails now, the sweeper removes them later.
      for (const row of deleted) {
        for (const key of [row.storage_key, row.thumb_storage_key]) {
          if (key)
            await store.storage
              .delete(key)
              .catch((err: unknown) =>
                log.warn({ imageId: row.id, problem: loggedMessage(err) }, 'blob removal deferred to the sweeper'),
              );
        }
      }
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
    enqueueThumbnail: (id: string) => jobs.enqueueThumbnail(id),

    /** A user as sharing needs them (role, whether active), or undefined. */
    userBrief: (id: string) => (isUuid(id) ? repo.findUser(id) : Promise.resolve(undefined)),
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
    sweep: (graceMs?: number) => jobs.sweep(graceMs),

    /** Sweep once now and every interval; resume thumbnails a crash interrupted. */
    startJobs: () => jobs.start(),

    /** Waits for thumbnails and mails started in the background (tests, shutdown). */
    idle: () => jobs.idle(),

    close: () => jobs.close(),
  };
}
export type ImagesService = ReturnType<typeof createImagesService>;

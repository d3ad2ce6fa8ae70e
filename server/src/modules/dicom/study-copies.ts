import { DicomMessages } from '@medshare/contracts';
import type { Insertable } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { IntegrityError } from '../../crypto/envelope.ts';
import type { Db } from '../../db/db.ts';
import type { ImageRow, ImagesTable } from '../../db/schema.ts';
import { AppError, badRequest, conflict, loggedMessage, notFound } from '../../errors.ts';
import type { EncryptedStore, SealedObject } from '../../storage/encrypted-store.ts';
import { BlobNotFoundError } from '../../storage/storage.ts';
import type { AuditEvent } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { ImagesService } from '../images/images.service.ts';
import type { DicomEngine } from './dicom-engine.ts';
import { METADATA_PURPOSE } from './dicom-metadata.ts';
import { createDicomRepository } from './dicom.repository.ts';

interface Deps {
  store: EncryptedStore;
  engine: Pick<DicomEngine, 'deidentify' | 'columnsOf'>;
  images: Pick<ImagesService, 'accessTo' | 'enqueueThumbnail'>;
  /** Whether an image is live (images.repository.ts `isLiveImage`). */
  isLive: (imageId: string) => Promise<boolean>;
  log: Logger;
  /** De-identifications running at once (each holds one object in a worker). */
  concurrency?: number;
}

/** Copies made for one study share, their blobs written and their rows not yet stored. */
/** The images row of a de-identified copy (PS3.15 Annex E) of `source`, stored as `stored` under `id`. */
export function deidentifiedCopyRow(
  id: string,
  source: Pick<ImageRow, 'id' | 'uploader_id' | 'dicom_modality'>,
  stored: SealedObject,
  columns: ReturnType<DicomEngine['columnsOf']>,
): Insertable<ImagesTable> {
  return {
    id,
    uploader_id: source.uploader_id,
    patient_id: null,
    // The source caption is free text and may name the patient: the copy gets a neutral one.
    caption: `De-identified ${source.dicom_modality ?? 'DICOM'} image`,
    content_type: 'application/dicom',
    original_name: 'deidentified.dcm',
    size_bytes: stored.size,
    sha256: stored.sha256,
    storage_key: id,
    wrapped_key: stored.wrappedKey,
    key_id: stored.keyId,
    enc_format: stored.format,
    thumbnail_status: columns.dicom_kind === 'image' ? 'pending' : 'none',
    ...columns,
    deidentified: true,
    source_image_id: source.id,
  };
}

export interface PreparedCopies {
  /** The copies' ids, in the order of the sources. */
  ids: string[];
  /** Their `dicom.deidentify` audit rows, appended in the transaction that stores the rows. */
  events: AuditEvent[];
}

interface Made {
  id: string;
  source: ImageRow;
  row: Insertable<ImagesTable>;
  sealed: Uint8Array;
}

/**
 * De-identified copies of a study's images for one study share (`docs/architecture.md` › Sharing):
 * every UID is mapped under the share's own scope (deidentify.ts `mappedUid`: HMAC of scope and
 * UID), so the copy's Study and Series Instance UIDs agree across all its instances (and with the
 * references inside them), even when the study's images came from several uploaders, and two
 * shares of one study cannot be linked by their UIDs.
 *
 * Nothing is half-stored: `prepare` writes every copy's blob and no row; the sharing service stores
 * the rows (`on(trx).insert`, marked with the share's id: images.copy_for_group), the share and all
 * their audit rows in one transaction, and calls `discard` (blobs) when that fails or the share is
 * withdrawn because its mail could not be sent (the rows go with the share's row).
 */
export function createStudyCopies({ store, engine, images, isLive, log, concurrency = 2 }: Deps) {
  const wrappedOf = (image: ImageRow) => ({ wrappedKey: image.wrapped_key, keyId: image.key_id });
  const madeOf = new WeakMap<PreparedCopies, Made[]>();

  const loader = (image: ImageRow) => async (): Promise<ArrayBuffer> => {
    try {
      return await store.readAll(image.storage_key, wrappedOf(image), { sha256: image.sha256, size: image.size_bytes });
    } catch (err) {
      // Deleted since `prepare` read it: the share fails as it would a moment later (404).
      if (err instanceof BlobNotFoundError && !(await isLive(image.id))) throw notFound('Image not found');
      if (err instanceof IntegrityError || err instanceof BlobNotFoundError) {
        log.error({ imageId: image.id, problem: err.message }, 'stored DICOM object cannot be read');
        throw new AppError(500, 'integrity_failed', 'The stored file could not be read or failed its integrity check.');
      }
      throw err;
    }
  };

  const removeBlobs = (made: Made[]) =>
    Promise.all(made.map((m) => store.storage.delete(m.id).catch(() => undefined))).then(() => undefined);

  return {
    /** Makes every copy and writes its blob (no row). One flagged instance refuses the study (409) before any blob. */
    async prepare(actor: Actor, sourceIds: string[], scope: string): Promise<PreparedCopies> {
      const sources: ImageRow[] = [];
      for (const id of sourceIds) {
        const access = await images.accessTo(actor, id);
        if (!access?.manage) throw notFound('Image not found');
        if (access.image.content_type !== 'application/dicom' || !access.image.dicom_kind)
          throw badRequest(DicomMessages.notDicom);
        // Refused before any copy is made: one flagged instance refuses the study.
        if (access.image.dicom_burned_in) throw conflict(DicomMessages.burnedIn);
        sources.push(access.image);
      }
      const made: Made[] = [];
      try {
        let next = 0;
        const lane = async () => {
          try {
            await work();
          } catch (err) {
            // The other lanes take no more work: the study share fails whole.
            next = sources.length;
            throw err;
          }
        };
        const work = async () => {
          while (next < sources.length) {
            const source = sources[next++]!;
            const copy = await engine.deidentify(loader(source), scope, actor.userId);
            if (copy.burnedInAnnotation) throw conflict(DicomMessages.burnedIn);
            const id = randomUUID();
            const stored = await store.putBuffer(id, Buffer.from(copy.bytes));
            const columns = engine.columnsOf(copy.summary, null);
            made.push({
              id,
              source,
              row: deidentifiedCopyRow(id, source, stored, columns),
              sealed: store.sealValue(
                { wrappedKey: stored.wrappedKey, keyId: stored.keyId },
                METADATA_PURPOSE,
                id,
                copy.metadata,
              ),
            });
          }
        };
        // Every lane settles before the blobs of a failed study share are removed.
        const lanes = await Promise.allSettled(Array.from({ length: Math.min(concurrency, sources.length) }, lane));
        const failed = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
        if (failed) throw failed.reason;
      } catch (err) {
        await removeBlobs(made);
        log.warn({ problem: loggedMessage(err), copies: made.length }, 'de-identified study copy abandoned');
        throw err;
      }
      const bySource = new Map(made.map((m) => [m.source.id, m.id]));
      const prepared: PreparedCopies = {
        ids: sourceIds.map((id) => bySource.get(id)!),
        events: made.map((m) => ({
          userId: actor.userId,
          action: 'dicom.deidentify' as const,
          table: 'images',
          recordId: m.id,
          ip: actor.ip,
          reason: `source=${m.source.id} profile=PS3.15-E-basic study-share=${scope}`,
        })),
      };
      madeOf.set(prepared, made);
      return prepared;
    },

    /** Bound to the sharing service's transaction (after its share_groups row): the copies' rows and metadata. */
    on(trx: Db) {
      const dicom = createDicomRepository(trx);
      return {
        async insert(prepared: PreparedCopies, groupId: string): Promise<void> {
          const made = madeOf.get(prepared) ?? [];
          // The sources as they are now, locked: one deleted while its copy was being made (seconds,
          // after `prepare` read it) would leave a live copy behind, shared, that its deletion never
          // saw. A deletion waits for this lock, or committed first and the share fails (404).
          const sources = [...new Set(made.map((m) => m.source.id))];
          if ((await dicom.lockLiveImages(sources)) < sources.length) throw notFound('Image not found');
          await dicom.insertCopies(made.map((m) => ({ row: { ...m.row, copy_for_group: groupId }, sealed: m.sealed })));
        },
      };
    },

    /** Once the share stands (its mail left): thumbnails. */
    committed(prepared: PreparedCopies): void {
      for (const m of madeOf.get(prepared) ?? [])
        if (m.row.thumbnail_status === 'pending') images.enqueueThumbnail(m.id);
    },

    /** The share failed, or was withdrawn with its copies' rows: their blobs go too. */
    async discard(prepared: PreparedCopies): Promise<void> {
      await removeBlobs(madeOf.get(prepared) ?? []);
      log.warn({ copies: prepared.ids.length }, 'de-identified study copy abandoned');
    },
  };
}
export type StudyCopies = ReturnType<typeof createStudyCopies>;

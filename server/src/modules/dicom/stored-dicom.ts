import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { type ExpectedPlaintext, IntegrityError, type WrappedKey } from '../../crypto/envelope.ts';
import type { ImageRow } from '../../db/schema.ts';
import { AppError, loggedMessage, notFound } from '../../errors.ts';
import type { EncryptedStore } from '../../storage/encrypted-store.ts';
import { BlobNotFoundError } from '../../storage/storage.ts';
import type { DicomEngine } from './dicom-engine.ts';
import type { DicomJson } from './dicom-json.ts';
import { METADATA_PURPOSE, MetadataTooLarge, type StoredDicomMetadata, unpackMetadata } from './dicom-metadata.ts';
import type { DicomRepository } from './dicom.repository.ts';

/**
 * Sealed data sets fetched in one query: at most this many, and no more sealed bytes than
 * SEALED_BATCH_BYTES (at least one). Each is opened only when its reader reaches it, so one request
 * holds one batch of sealed bytes and one opened data set (at most MAX_METADATA_BYTES of JSON).
 */
const METADATA_BATCH = 200;
const SEALED_BATCH_BYTES = 16 * 1024 * 1024;

interface Deps {
  store: EncryptedStore;
  repo: DicomRepository;
  engine: DicomEngine;
  log: Logger;
}

/**
 * A stored DICOM object as the answers read it (whole for a worker job or a small part, streamed
 * otherwise; integrity failures logged and answered 500) and its sealed parsed metadata.
 */
export function createStoredDicom({ store, repo, engine, log }: Deps) {
  const integrityFailed = (image: ImageRow, err: Error) => {
    log.error({ imageId: image.id, problem: err.message }, 'stored DICOM object cannot be read');
    return new AppError(500, 'integrity_failed', 'The stored file could not be read or failed its integrity check.');
  };
  const wrappedOf = (image: ImageRow) => ({ wrappedKey: image.wrapped_key, keyId: image.key_id });

  /**
   * One read of an image's stored object: a missing or forged one is the image's integrity failure
   * (logged, 500 without details), unless it went with its image, deleted since its row was read
   * (404); anything else passes as it is.
   */
  async function reading<T>(
    image: ImageRow,
    read: (key: string, wrapped: WrappedKey, expected: ExpectedPlaintext) => Promise<T>,
  ): Promise<T> {
    try {
      return await read(image.storage_key, wrappedOf(image), { sha256: image.sha256, size: image.size_bytes });
    } catch (err) {
      if (err instanceof BlobNotFoundError && !(await repo.isLive(image.id))) {
        // No error: the image's deletion took it. A stream already answering 200 (WADO-RS) is cut.
        log.info({ imageId: image.id }, 'stored DICOM object deleted while being read');
        throw notFound('Image not found');
      }
      if (err instanceof IntegrityError || err instanceof BlobNotFoundError) throw integrityFailed(image, err);
      throw err;
    }
  }

  /**
   * The stored object for a worker job: read (into one buffer, moved to the worker) only when a
   * worker is free, so that queued jobs hold no copy of the file.
   */
  const loader = (image: ImageRow) => () => reading(image, (...args) => store.readAll(...args));

  /**
   * A small object's plaintext, checked whole before it is returned, as the pieces the decryption
   * made (WADO-RS read-ahead: written out in turn, never joined).
   */
  const readBlob = (image: ImageRow): Promise<Uint8Array[]> => reading(image, (...args) => store.readPieces(...args));

  /** The plaintext as a stream (WADO-RS instance): never held whole. */
  const openBlob = (image: ImageRow): Promise<Readable> => reading(image, (...args) => store.open(...args));

  const sealMetadata = (image: Pick<ImageRow, 'id' | 'wrapped_key' | 'key_id'>, packed: Uint8Array) =>
    store.sealValue(wrappedOf(image as ImageRow), METADATA_PURPOSE, image.id, packed);

  /** First reads of one older row share one worker job. */
  const making = new Map<string, Promise<StoredDicomMetadata>>();

  /**
   * The parsed metadata stored with the row (dicom-metadata.ts). A row stored before it was kept
   * gets it made once, by one worker job, and stored.
   */
  async function metadataOf(image: ImageRow, owner: string): Promise<StoredDicomMetadata> {
    const sealed = await repo.metadataOf(image.id);
    return sealed ? openSealed(image, sealed, owner) : remake(image, owner, false);
  }

  /**
   * A stored copy opened. One over the per-data-set bound (stored before it was checked) is made
   * again from the file, with the values capped as at upload, and replaces it: a read never fails
   * on it. A file whose data set is over the bound even so answers 413 (DicomRejection in the worker).
   */
  async function openSealed(image: ImageRow, sealed: Uint8Array, owner: string): Promise<StoredDicomMetadata> {
    try {
      return unpackMetadata(store.openValue(wrappedOf(image), METADATA_PURPOSE, image.id, sealed));
    } catch (err) {
      if (err instanceof IntegrityError) throw integrityFailed(image, err);
      if (err instanceof MetadataTooLarge) return remake(image, owner, true);
      throw err;
    }
  }

  /** The metadata made from the file by one worker job (one for concurrent reads of the row), then stored. */
  function remake(image: ImageRow, owner: string, replace: boolean): Promise<StoredDicomMetadata> {
    let pending = making.get(image.id);
    if (!pending) {
      pending = (async () => {
        const packed = await engine.metadata(loader(image), owner);
        const sealed = sealMetadata(image, packed);
        await (replace ? repo.replaceMetadata(image.id, sealed) : repo.saveMetadata(image.id, sealed)).catch(
          (err: unknown) => log.warn({ imageId: image.id, problem: loggedMessage(err) }, 'DICOM metadata not stored'),
        );
        return unpackMetadata(packed);
      })().finally(() => making.delete(image.id));
      making.set(image.id, pending);
    }
    return pending;
  }

  /**
   * The stored DICOM JSON of each row, in order, one at a time: sealed copies fetched in batches bounded
   * by count and by bytes, each opened only when the reader asks for it (older rows made once each).
   * `tooLarge: 'null'` yields null for a data set over the bound even when made again (QIDO: that
   * result without stored attributes); 'throw' lets its 413 through.
   */
  async function* dataSetsOf(
    rows: ImageRow[],
    owner: string,
    tooLarge: 'throw' | 'null',
  ): AsyncGenerator<DicomJson | null> {
    for (let at = 0; at < rows.length;) {
      const next = rows.slice(at, at + METADATA_BATCH);
      const sizes = await repo.metadataSizes(next.map((r) => r.id));
      let count = 0;
      let bytes = 0;
      while (count < next.length) {
        const size = sizes.get(next[count]!.id) ?? 0;
        if (count > 0 && bytes + size > SEALED_BATCH_BYTES) break;
        bytes += size;
        count++;
      }
      const batch = next.slice(0, count);
      const sealed = await repo.metadataOfMany(batch.filter((r) => sizes.has(r.id)).map((r) => r.id));
      for (const row of batch) {
        const value = sealed.get(row.id);
        sealed.delete(row.id);
        let json: DicomJson | null;
        try {
          json = (value ? await openSealed(row, value, owner) : await metadataOf(row, owner)).json;
        } catch (err) {
          if (tooLarge === 'throw' || !(err instanceof AppError) || err.status !== 413) throw err;
          json = null;
        }
        yield json;
      }
      at += count;
    }
  }

  return { integrityFailed, loader, readBlob, openBlob, sealMetadata, metadataOf, dataSetsOf };
}
export type StoredDicom = ReturnType<typeof createStoredDicom>;

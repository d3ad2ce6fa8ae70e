import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { ImagesTable } from '../../db/schema.ts';
import { loadKeptSecret } from '../../crypto/field-encryption.ts';
import { keyObjectOf } from '../../crypto/envelope.ts';
import { AppError, tooManyRequests } from '../../errors.ts';
import { freeBuffer } from '../../storage/free-buffer.ts';
import type { DicomSummary, Inspection } from './dicom-core.ts';
import type { DeidentifyResult } from './deidentify.ts';
import { DicomBusy, DicomJobFailed, type DicomPool, DicomRefused, type Job } from './dicom-pool.ts';
import type { Rendered } from './render.ts';
import type { ThumbnailPixels } from './thumbnail-frame.ts';

/** Time limits per job (the worker is replaced when one is overrun). */
export const DICOM_LIMITS = {
  inspectMs: 15_000,
  renderMs: 30_000,
  deidentifyMs: 30_000,
  readMs: 20_000,
  transcodeMs: 30_000,
} as const;

export const CANNOT_PROCESS = 'The DICOM file could not be processed.';
export const DICOM_BUSY = 'The DICOM service is still working on your earlier requests. Try again shortly.';

/**
 * Where a job's bytes come from: bytes in hand (copied for the worker), or a reader called only
 * once a worker is free (a stored object: nothing is read while the job waits), whose fresh
 * buffer is moved to the worker.
 */
export type DicomSource = Uint8Array | (() => Promise<ArrayBuffer>);
/** Whose work it is when no user asked (background jobs without an uploader at hand). */
export const SYSTEM_OWNER = 'system';

export type DicomColumns = Pick<
  Insertable<ImagesTable>,
  | 'dicom_kind'
  | 'dicom_modality'
  | 'dicom_body_part'
  | 'dicom_study_date'
  | 'dicom_rows'
  | 'dicom_columns'
  | 'dicom_frames'
  | 'dicom_bits_allocated'
  | 'dicom_bits_stored'
  | 'dicom_photometric'
  | 'dicom_transfer_syntax'
  | 'dicom_sop_class_uid'
  | 'dicom_study_uid'
  | 'dicom_series_uid'
  | 'dicom_sop_instance_uid'
  | 'dicom_patient_key'
  | 'dicom_burned_in'
>;

const cap = (s: string | null, n: number) => (s === null ? null : s.slice(0, n));

/** Bytes for the worker: a copy, so that the caller's buffer stays usable. */
const transferable = (bytes: Uint8Array): ArrayBuffer =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** An upload the worker accepted: its columns, and its packed metadata for one use. */
export interface CheckedUpload {
  columns: DicomColumns;
  /**
   * Hands the metadata to `use` and frees it when `use` returns: synchronously (a callback that
   * returns a promise is refused by the type and at run time), since the bytes are gone once it has.
   */
  withMetadata<T>(use: (metadata: Uint8Array) => T extends PromiseLike<unknown> ? never : T): T;
  /** Frees the metadata unused (an upload refused after the check). */
  discard(): void;
}

/**
 * Hands a worker's answer to `use`, then frees its pixels once `use` has settled, whether it succeeded or
 * not. They came from the worker thread's malloc arena, which kept them until this thread's next full
 * collection (up to ~90 MiB under load): the engine's methods that hand such bytes to a consumer
 * (`thumbnail`, `renderFrame`, `inspectUpload`'s `withMetadata`) free them (freeBuffer), so that no
 * caller has to remember it. Never bytes handed to a socket, whose write may still be pending.
 */
async function usedOnce<V extends { pixels: Uint8Array }, T>(value: V, use: (value: V) => Promise<T>): Promise<T> {
  try {
    return await use(value);
  } finally {
    freeBuffer(value.pixels);
  }
}

/**
 * The engine's two HMAC keys, whose outputs are stored: `patient` names a DICOM Patient ID
 * (`images.dicom_patient_key`, the DIMSE receiver's patient rule, QIDO's PatientID match), `uidMap`
 * maps UIDs in de-identified copies (so later copies of one study agree with earlier ones).
 */
export interface DicomKeys {
  uidMap: Buffer;
  patient: Buffer;
}

/** Each key's field_keys purpose, and the HKDF info it was first derived with. */
const DICOM_KEYS = {
  uidMap: { purpose: 'dicom-uid-map', info: 'medshare:dicom-uid-map:v1' },
  patient: { purpose: 'dicom-patient-key', info: 'medshare:dicom-patient-key:v1' },
} as const;

/** The keys as derived from a master key: what versions before the kept keys used (and what tests use). */
export function derivedDicomKeys(masterKey: Buffer): DicomKeys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), info, 32));
  return { uidMap: derive(DICOM_KEYS.uidMap.info), patient: derive(DICOM_KEYS.patient.info) };
}

/**
 * The keys as kept in field_keys, wrapped by the master key, so that they survive its rotation
 * (`keys:rewrap`, which loads them first for that reason): before they were kept, a rotation changed
 * them, and a PACS re-sending a patient's instances found no patient (docs/security.md › Data at
 * rest). A database without them gets fresh random keys, unless rows already depend on the keys
 * earlier versions derived from the master key (a stored Patient ID key, a de-identified copy): then
 * those derived keys, so that the rows keep matching. Several instances starting at once agree:
 * the first key stored wins (field-encryption.ts › loadKeptSecret).
 */
export async function loadDicomKeys(db: Db, masterKey: Buffer): Promise<DicomKeys> {
  const purposes = Object.values(DICOM_KEYS).map((k) => k.purpose);
  const stored = await db
    .selectFrom('field_keys')
    .select('purpose')
    .where('purpose', 'in', purposes)
    .where('retired_at', 'is', null)
    .execute();
  // Asked only while a key is missing (a first start): on a large table the scan is not free.
  const dependent =
    stored.length < purposes.length &&
    (await db
      .selectFrom('images')
      .select('id')
      .where((eb) => eb.or([eb('dicom_patient_key', 'is not', null), eb('deidentified', '=', true)]))
      .limit(1)
      .executeTakeFirst());
  const derived = dependent ? derivedDicomKeys(masterKey) : null;
  const kept = (name: keyof DicomKeys) =>
    loadKeptSecret({
      db,
      masterKey,
      purpose: DICOM_KEYS[name].purpose,
      initial: () => derived?.[name] ?? randomBytes(32),
    });
  return { uidMap: await kept('uidMap'), patient: await kept('patient') };
}

/**
 * What the upload pipeline and the thumbnail job need from DICOM, with worker failures mapped
 * to client errors: refused objects 415/400 with their message, anything else 400 "could not be
 * processed" — never a 500 for what a file contains.
 */
export function createDicomEngine({ pool, keys }: { pool: DicomPool; keys: DicomKeys }) {
  const uidKey = keys.uidMap;
  // A KeyObject: createHmac with a Buffer key costs 20 µs more per call (crypto/envelope.ts keyObjectOf).
  const patientKey = keyObjectOf(keys.patient);

  async function call<T>(job: Job): Promise<T> {
    try {
      return await pool.run<T>(job);
    } catch (err) {
      if (err instanceof DicomRefused)
        throw new AppError(
          err.status,
          err.status === 415 ? 'unsupported_type' : err.status === 413 ? 'too_large' : 'invalid_dicom',
          err.message,
        );
      if (err instanceof DicomJobFailed) throw new AppError(400, 'invalid_dicom', CANNOT_PROCESS);
      if (err instanceof DicomBusy) throw tooManyRequests(DICOM_BUSY, 5);
      throw err;
    }
  }

  const patientKeyOf = (patientId: string | null) =>
    patientId ? createHmac('sha256', patientKey).update(patientId).digest('hex') : null;

  function columnsOf(summary: DicomSummary, patientId: string | null): DicomColumns {
    return {
      dicom_kind: summary.kind,
      dicom_modality: cap(summary.modality, 16),
      dicom_body_part: cap(summary.bodyPart, 64),
      dicom_study_date: summary.studyDate,
      dicom_rows: summary.rows,
      dicom_columns: summary.columns,
      dicom_frames: summary.frames,
      dicom_bits_allocated: summary.bitsAllocated,
      dicom_bits_stored: summary.bitsStored,
      dicom_photometric: cap(summary.photometricInterpretation, 32),
      dicom_transfer_syntax: cap(summary.transferSyntaxUid, 64),
      dicom_sop_class_uid: cap(summary.sopClassUid, 64),
      dicom_study_uid: cap(summary.studyInstanceUid, 64),
      dicom_series_uid: cap(summary.seriesInstanceUid, 64),
      dicom_sop_instance_uid: cap(summary.sopInstanceUid, 64),
      dicom_patient_key: patientKeyOf(patientId),
      dicom_burned_in: summary.burnedInAnnotation,
    };
  }

  const source = (bytes: DicomSource) => (typeof bytes === 'function' ? bytes : transferable(bytes));

  return {
    patientKeyOf,
    columnsOf,
    /**
     * Checks an uploaded object; the columns to store, and the packed metadata (dicom-metadata.ts)
     * to seal beside the row, handed once to `withMetadata`'s callback and freed when it returns.
     * Throws AppError 415/413/400 for what cannot be accepted. The bytes are handed over (moved to
     * the worker, not copied): the caller must not use them afterwards.
     */
    async inspectUpload(bytes: Uint8Array, owner: string = SYSTEM_OWNER): Promise<CheckedUpload> {
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const result = await call<Inspection & { metadata: Uint8Array }>({
        op: 'ingest',
        bytes: whole && bytes.buffer instanceof ArrayBuffer ? bytes.buffer : transferable(bytes),
        owner,
        timeoutMs: DICOM_LIMITS.inspectMs,
      });
      const { metadata } = result;
      return {
        columns: columnsOf(result.summary, result.phi.patientId),
        withMetadata<T>(use: (metadata: Uint8Array) => T extends PromiseLike<unknown> ? never : T): T {
          if ((metadata.buffer as ArrayBuffer).detached) throw new Error('the upload metadata was used already');
          try {
            const result = use(metadata) as unknown;
            if (typeof (result as PromiseLike<unknown> | null)?.then === 'function')
              throw new Error('withMetadata takes a synchronous callback');
            return result as T;
          } finally {
            freeBuffer(metadata);
          }
        },
        discard: () => freeBuffer(metadata),
      };
    },
    inspect: (bytes: DicomSource, owner: string = SYSTEM_OWNER) =>
      call<Inspection>({ op: 'inspect', bytes: source(bytes), owner, timeoutMs: DICOM_LIMITS.inspectMs }),
    /** First frame as RGBA, and the object's non-PHI summary (worker, time-limited). */
    render: (bytes: DicomSource, owner: string = SYSTEM_OWNER) =>
      call<Rendered & { summary: DicomSummary }>({
        op: 'render',
        bytes: source(bytes),
        owner,
        timeoutMs: DICOM_LIMITS.renderMs,
      }),
    /**
     * First frame for a thumbnail of at most `maxSide` px a side: reduced and windowed in the worker
     * where it can be (grey or RGB), else the full render (RGBA). Handed to `use` (an encode), and
     * freed once `use` has settled.
     */
    thumbnail: async <T>(
      bytes: DicomSource,
      maxSide: number,
      use: (frame: ThumbnailPixels) => Promise<T>,
      owner: string = SYSTEM_OWNER,
    ): Promise<T> =>
      usedOnce(
        await call<ThumbnailPixels>({
          op: 'thumbnail',
          bytes: source(bytes),
          maxSide,
          owner,
          timeoutMs: DICOM_LIMITS.renderMs,
        }),
        use,
      ),
    /** A de-identified copy; UIDs mapped under `scope` (the uploader), so copies of one study agree. */
    deidentify: (bytes: DicomSource, scope: string, owner: string = scope) =>
      call<DeidentifyResult & { burnedInAnnotation: boolean; summary: DicomSummary; metadata: Uint8Array }>({
        op: 'deidentify',
        bytes: source(bytes),
        key: transferable(uidKey),
        scope,
        owner,
        timeoutMs: DICOM_LIMITS.deidentifyMs,
      }),
    /**
     * Frames (1-based) as views of one buffer moved from the worker; refused (413) when together
     * they exceed `maxBytes`.
     */
    async frames(bytes: DicomSource, frames: number[], maxBytes: number, owner: string = SYSTEM_OWNER, decode = false) {
      const result = await call<{
        transferSyntaxUid: string;
        encapsulated: boolean;
        buffer: ArrayBuffer;
        lengths: number[];
      }>({ op: 'frames', bytes: source(bytes), frames, maxBytes, decode, owner, timeoutMs: DICOM_LIMITS.readMs });
      let at = 0;
      const views = result.lengths.map((length) => {
        const view = new Uint8Array(result.buffer, at, length);
        at += length;
        return view;
      });
      return { transferSyntaxUid: result.transferSyntaxUid, encapsulated: result.encapsulated, frames: views };
    },
    /**
     * Frame `frame` (1-based) as RGBA, with the client's window if given (WADO-RS rendered). Handed
     * to `use` (an encode: never bytes for a socket), and freed once `use` has settled.
     */
    renderFrame: async <T>(
      bytes: DicomSource,
      frame: number,
      window: { center: number; width: number } | null,
      use: (image: Rendered) => Promise<T>,
      owner: string = SYSTEM_OWNER,
    ): Promise<T> =>
      usedOnce(
        await call<Rendered>({
          op: 'renderFrame',
          bytes: source(bytes),
          frame,
          window,
          owner,
          timeoutMs: DICOM_LIMITS.renderMs,
        }),
        use,
      ),
    /** The object as a Part 10 file in Explicit VR Little Endian (stored syntax checked by the caller). */
    transcode: (bytes: DicomSource, owner: string = SYSTEM_OWNER) =>
      call<Uint8Array>({ op: 'transcode', bytes: source(bytes), owner, timeoutMs: DICOM_LIMITS.transcodeMs }),
    /** The packed metadata (dicom-metadata.ts) of an object stored before metadata was kept with the row. */
    metadata: (bytes: DicomSource, owner: string = SYSTEM_OWNER) =>
      call<Uint8Array>({ op: 'json', bytes: source(bytes), owner, timeoutMs: DICOM_LIMITS.readMs }),
    close: () => pool.close(),
  };
}
export type DicomEngine = ReturnType<typeof createDicomEngine>;

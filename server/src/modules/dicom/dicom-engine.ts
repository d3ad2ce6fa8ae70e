import { createHmac, hkdfSync } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { ImagesTable } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { DicomSummary, Inspection } from './dicom-core.ts';
import type { DeidentifyResult } from './deidentify.ts';
import type { DicomJson } from './dicom-json.ts';
import { DicomJobFailed, type DicomPool, DicomRefused, type Job } from './dicom-pool.ts';
import type { Rendered } from './render.ts';

/** Time limits per job (the worker is replaced when one is overrun). */
export const DICOM_LIMITS = { inspectMs: 15_000, renderMs: 30_000, deidentifyMs: 30_000, readMs: 20_000 } as const;

export const CANNOT_PROCESS = 'The DICOM file could not be processed.';

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

/**
 * What the upload pipeline and the thumbnail job need from DICOM, with worker failures mapped
 * to client errors: refused objects 415/400 with their message, anything else 400 "could not be
 * processed" — never a 500 for what a file contains.
 */
export function createDicomEngine({ pool, masterKey }: { pool: DicomPool; masterKey: Buffer }) {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), info, 32));
  const uidKey = derive('medshare:dicom-uid-map:v1');
  const patientKey = derive('medshare:dicom-patient-key:v1');

  async function call<T>(job: Job): Promise<T> {
    try {
      return await pool.run<T>(job);
    } catch (err) {
      if (err instanceof DicomRefused)
        throw new AppError(err.status, err.status === 415 ? 'unsupported_type' : 'invalid_dicom', err.message);
      if (err instanceof DicomJobFailed) throw new AppError(400, 'invalid_dicom', CANNOT_PROCESS);
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

  return {
    patientKeyOf,
    columnsOf,
    /**
     * Checks an uploaded object; the columns to store. Throws AppError 415/400 for what cannot be
     * accepted. The bytes are handed over (moved to the worker, not copied): the caller must not
     * use them afterwards.
     */
    async inspectUpload(bytes: Uint8Array): Promise<DicomColumns> {
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const inspection = await call<Inspection>({
        op: 'inspect',
        bytes: whole && bytes.buffer instanceof ArrayBuffer ? bytes.buffer : transferable(bytes),
        timeoutMs: DICOM_LIMITS.inspectMs,
      });
      return columnsOf(inspection.summary, inspection.phi.patientId);
    },
    inspect: (bytes: Uint8Array) =>
      call<Inspection>({ op: 'inspect', bytes: transferable(bytes), timeoutMs: DICOM_LIMITS.inspectMs }),
    /** First frame as RGBA (worker, time-limited). */
    render: (bytes: Uint8Array) =>
      call<Rendered>({ op: 'render', bytes: transferable(bytes), timeoutMs: DICOM_LIMITS.renderMs }),
    /** A de-identified copy; UIDs mapped under `scope` (the uploader), so copies of one study agree. */
    deidentify: (bytes: Uint8Array, scope: string) =>
      call<DeidentifyResult & { burnedInAnnotation: boolean; summary: DicomSummary }>({
        op: 'deidentify',
        bytes: transferable(bytes),
        key: transferable(uidKey),
        scope,
        timeoutMs: DICOM_LIMITS.deidentifyMs,
      }),
    frames: (bytes: Uint8Array, frames: number[]) =>
      call<{ transferSyntaxUid: string; encapsulated: boolean; frames: Uint8Array[] }>({
        op: 'frames',
        bytes: transferable(bytes),
        frames,
        timeoutMs: DICOM_LIMITS.readMs,
      }),
    json: (bytes: Uint8Array) =>
      call<DicomJson>({ op: 'json', bytes: transferable(bytes), timeoutMs: DICOM_LIMITS.readMs }),
    close: () => pool.close(),
  };
}
export type DicomEngine = ReturnType<typeof createDicomEngine>;

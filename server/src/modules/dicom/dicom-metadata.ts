import { gunzipSync, gzipSync } from 'node:zlib';
import { AppError, errorCode } from '../../errors.ts';
import { type DicomPhi, DicomMessages, DicomRejection } from './dicom-core.ts';
import type { DicomJson } from './dicom-json.ts';

/**
 * What a DICOM read needs besides pixels, made once from one parse (at upload, or on first read of
 * an older row) and stored with the image, sealed under the image's own data key (PHI: it holds the
 * patient's attributes): the WADO-RS metadata and the metadata route then read no file and queue no
 * worker job.
 */
export interface StoredDicomMetadata {
  /** The data set in the DICOM JSON model, bulk data left out. */
  json: DicomJson;
  phi: DicomPhi;
}

/** Purpose of the key the sealed metadata is encrypted with (derived from the image's data key). */
export const METADATA_PURPOSE = 'dicom-metadata';
/**
 * The most one data set may take as JSON (UTF-8), the per-data-set bound of docs/security.md ›
 * Memory bounds: checked when it is made (a larger one is refused, 413, nothing stored) and when it
 * is read (a copy stored before the check is made again from its file).
 */
export const MAX_METADATA_BYTES = 64 * 1024 * 1024;
const MAX_METADATA_MIB = MAX_METADATA_BYTES / 2 ** 20;

/** A stored copy larger than the bound (kept before it was checked at upload): read it again from the file. */
export class MetadataTooLarge extends AppError {
  constructor() {
    super(413, 'too_large', DicomMessages.metadataTooLarge(MAX_METADATA_MIB));
  }
}

/**
 * Serialised and compressed in the worker (functional-group JSON of large multi-frame objects
 * compresses well), in a buffer of its own: a small Buffer may share Node's pool slab, which must
 * never be transferred. Over MAX_METADATA_BYTES: refused (DicomRejection 413).
 */
export function packMetadata(metadata: StoredDicomMetadata): Uint8Array {
  let text: Buffer;
  try {
    text = Buffer.from(JSON.stringify(metadata), 'utf8');
  } catch (err) {
    // Past V8's longest string: far past the bound.
    if (err instanceof RangeError) throw new DicomRejection(413, DicomMessages.metadataTooLarge(MAX_METADATA_MIB));
    throw err;
  }
  if (text.length > MAX_METADATA_BYTES) throw new DicomRejection(413, DicomMessages.metadataTooLarge(MAX_METADATA_MIB));
  // Level 1: made once per instance at ingest; on a CT data set (15 KB of JSON) 0.6 ms less worker CPU
  // than the default 6 for about 15 % more bytes (bench/RESULTS.md › Issue 15 speed (stop 21)).
  return new Uint8Array(gzipSync(text, { level: 1 }));
}

/** The stored metadata; MetadataTooLarge (never inflated past the bound) for a copy over it. */
export function unpackMetadata(packed: Uint8Array): StoredDicomMetadata {
  let text: Buffer;
  try {
    text = gunzipSync(packed, { maxOutputLength: MAX_METADATA_BYTES });
  } catch (err) {
    if (err instanceof RangeError || errorCode(err) === 'ERR_BUFFER_TOO_LARGE') throw new MetadataTooLarge();
    throw err;
  }
  return JSON.parse(text.toString('utf8')) as StoredDicomMetadata;
}

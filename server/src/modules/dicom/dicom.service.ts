import {
  type AuditAction,
  type DicomMetadata,
  DicomMessages,
  LIST_MAX_WINDOW,
  type QidoQuery,
  type RenderedQuery,
} from '@medshare/contracts';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import type { Logger } from 'pino';
import { IntegrityError } from '../../crypto/envelope.ts';
import type { Db } from '../../db/db.ts';
import type { ImageRow } from '../../db/schema.ts';
import type { Readable } from 'node:stream';
import { AppError, badRequest, conflict, errorMessage, notAcceptable, notFound, tooLarge } from '../../errors.ts';
import type { EncryptedStore } from '../../storage/encrypted-store.ts';
import { BlobNotFoundError } from '../../storage/storage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import { dicomItem } from '../images/image-presenter.ts';
import type { ImagesService } from '../images/images.service.ts';
import {
  AcceptMessages,
  type RenderedType,
  acceptsDicomJson,
  capabilitiesType,
  chooseFrames,
  chooseSyntax,
  renderedType,
  retrieveSyntaxes,
} from './accept.ts';
import { DicomMessages as CoreMessages, MAX_FRAME_PIXELS, TransferSyntax, isNativeSyntax } from './dicom-core.ts';
import type { DicomEngine } from './dicom-engine.ts';
import type { DicomJson, JsonAttribute } from './dicom-json.ts';
import { METADATA_PURPOSE, MetadataTooLarge, type StoredDicomMetadata, unpackMetadata } from './dicom-metadata.ts';
import { type InstanceFilter, type Viewer, createDicomRepository } from './dicom.repository.ts';
import {
  type QidoLevel,
  includeFields,
  qidoResult,
  returnsPhi,
  studyDateRange,
  textFiltersOf,
  textMatcher,
  unmatchedKeys,
} from './qido-fields.ts';
import { capabilitiesJson, capabilitiesWadl } from './capabilities.ts';
import type { Rendered } from './render.ts';

interface Deps {
  db: Db;
  store: EncryptedStore;
  engine: DicomEngine;
  images: ImagesService;
  audit: AuditService;
  log: Logger;
  publicUrl: string;
}

/**
 * One body part of a multipart answer: bytes in hand (views, never copied again), a stream of known
 * size, or a stored object opened (or transcoded) only when the answer reaches it or the few parts
 * before it (the route's read-ahead, bounded in bytes), so that a study's files are never all open,
 * or all in memory, at once.
 */
export type Part = { contentType: string } & (
  | { bytes: Uint8Array }
  | { stream: Readable; size: number }
  | { open: () => Promise<Readable | Uint8Array>; size: number | null }
);

/** The most one WADO-RS frames answer may carry (docs/security.md › Memory bounds). */
export const MAX_FRAMES_ANSWER_BYTES = 64 * 1024 * 1024;
/**
 * A stored instance up to this size is read whole (decrypted and checked, one buffer) when the answer
 * opens it, so that the route can read it ahead of the part being sent; larger ones stream.
 */
export const WHOLE_READ_MAX_BYTES = 4 * 1024 * 1024;
/** Instances one study or series retrieve (or metadata answer) may list; past it, ask series by series. */
export const MAX_RETRIEVE_INSTANCES = 10_000;
/**
 * Objects are transcoded to Explicit VR Little Endian (one worker job each, while the answer
 * streams) only up to this much declared pixel data; larger ones answer 406 (ask for them as stored).
 */
export const MAX_TRANSCODE_PIXEL_BYTES = 64 * 1024 * 1024;
/** Rendered images one series or study answer may carry, and their encoded bytes in all. */
export const MAX_RENDERED_PARTS = 1000;
export const MAX_RENDERED_ANSWER_BYTES = MAX_FRAMES_ANSWER_BYTES;
/** Largest viewport a rendered image may be scaled to, per side. */
export const MAX_VIEWPORT_PX = 4096;
/**
 * Sealed data sets fetched in one query: at most this many, and no more sealed bytes than
 * SEALED_BATCH_BYTES (at least one). Each is opened only when its reader reaches it, so one request
 * holds one batch of sealed bytes and one opened data set (at most MAX_METADATA_BYTES of JSON).
 */
const METADATA_BATCH = 200;
const SEALED_BATCH_BYTES = 16 * 1024 * 1024;
/** The most one QIDO answer may carry (JSON); past it, the page ends early with the "more results" warning. */
export const MAX_QIDO_ANSWER_BYTES = 64 * 1024 * 1024;
/** Rendering jobs one rendered series or study runs at once (the pool is shared and fair between users). */
const RENDER_LANES = 2;

/** Which study, series or instance a WADO-RS request names. */
export interface Target {
  study: string;
  series?: string | undefined;
  instance?: string | undefined;
}
const levelOf = (t: Target) => (t.instance ? 'instance' : t.series ? 'series' : 'study');

export const WadoMessages = {
  tooManyInstances: `This answer would list more than ${MAX_RETRIEVE_INSTANCES} instances: retrieve it series by series.`,
  tooManyRendered: `A rendered answer carries at most ${MAX_RENDERED_PARTS} images: ask for a series or an instance.`,
  renderedTooLarge: `The rendered images exceed ${MAX_RENDERED_ANSWER_BYTES / 2 ** 20} MiB, the most one answer may carry: ask for a series, an instance or a smaller viewport.`,
  nothingToRender: 'There is no image to render here (only documents without pixel data).',
  oneFrame: 'A rendered frame is one frame number.',
  window: 'window is center,width[,linear] with numbers (width above 0).',
  viewport: `viewport is vw,vh[,sx,sy,sw,sh]: whole numbers, vw and vh 1..${MAX_VIEWPORT_PX}, the region inside the image.`,
  windowShape: 'Only the linear window function is supported.',
  offset: `Only the first ${LIST_MAX_WINDOW} results can be paged through; narrow the search (StudyInstanceUID, Modality, PatientID).`,
  tooBroad: `Matching on names, accession numbers or descriptions looks at most ${LIST_MAX_WINDOW} results: narrow the search first (StudyDate, Modality, PatientID).`,
  studyDate: 'StudyDate is YYYYMMDD, or a range YYYYMMDD-YYYYMMDD (either end may be left out).',
} as const;

/** PS3.18 §8.10.3 warnings (RFC 7234 Warning header fields). */
export const QidoWarnings = {
  more: '299 MedShare "There are additional results that can be requested"',
  notMatched: (keys: string[]) =>
    `299 MedShare "The following attributes are not supported for matching and were ignored: ${keys.join(', ')}"`,
  unknownFields: '299 MedShare "Unknown includefield attributes were ignored."',
} as const;

/** What a rendered answer is made of: the client's window, JPEG quality and viewport. */
export interface RenderOptions {
  window: { center: number; width: number } | null;
  quality: number;
  viewport: {
    width: number;
    height: number;
    region: { left: number; top: number; width: number; height: number } | null;
  } | null;
}

/** Parses the rendered resource's query parameters (PS3.18 §8.3.5.1); 400 for values that make no sense. */
export function renderOptionsOf(query: RenderedQuery): RenderOptions {
  let window: RenderOptions['window'] = null;
  if (query.window !== undefined) {
    const [c, w, shape] = query.window.split(',').map((v) => v.trim());
    const center = Number(c);
    const width = Number(w);
    if (!c || !w || !Number.isFinite(center) || !Number.isFinite(width) || width <= 0)
      throw badRequest(WadoMessages.window, [{ field: 'window', message: WadoMessages.window }]);
    if (shape !== undefined && shape.toLowerCase() !== 'linear')
      throw badRequest(WadoMessages.windowShape, [{ field: 'window', message: WadoMessages.windowShape }]);
    window = { center, width };
  }
  let viewport: RenderOptions['viewport'] = null;
  if (query.viewport !== undefined) {
    const values = query.viewport.split(',').map((v) => v.trim());
    const numbers = values.map(Number);
    const bad = () => badRequest(WadoMessages.viewport, [{ field: 'viewport', message: WadoMessages.viewport }]);
    if (![2, 6].includes(values.length) || numbers.some((n) => !Number.isInteger(n) || n < 0)) throw bad();
    const [vw, vh, sx, sy, sw, sh] = numbers as [number, number, number?, number?, number?, number?];
    if (vw < 1 || vh < 1 || vw > MAX_VIEWPORT_PX || vh > MAX_VIEWPORT_PX) throw bad();
    if (sw === 0 || sh === 0) throw bad();
    viewport = {
      width: vw,
      height: vh,
      region: sx === undefined ? null : { left: sx, top: sy!, width: sw!, height: sh! },
    };
  }
  return { window, quality: query.quality ?? 90, viewport };
}
/** Frame numbers one request may list. */
export const MAX_FRAMES_PER_REQUEST = 1000;
export const FramesMessages = {
  list: 'Frames are a comma-separated list of frame numbers starting at 1.',
  tooMany: `At most ${MAX_FRAMES_PER_REQUEST} frames may be asked for in one request.`,
  repeated: (n: number) => `Frame ${n} is listed more than once: ask for each frame once.`,
  outOfRange: 'Frame number out of range.',
} as const;

/** The frame numbers of a WADO-RS frame list; 400 for anything but distinct positive integers. */
export function parseFrameList(list: string): number[] {
  const items = list.split(',').map((s) => s.trim());
  if (items.length > MAX_FRAMES_PER_REQUEST) throw badRequest(FramesMessages.tooMany);
  const numbers: number[] = [];
  const seen = new Set<number>();
  for (const item of items) {
    if (!/^[0-9]{1,9}$/.test(item)) throw badRequest(FramesMessages.list);
    const n = Number(item);
    if (n < 1) throw badRequest(FramesMessages.list);
    if (seen.has(n)) throw badRequest(FramesMessages.repeated(n));
    seen.add(n);
    numbers.push(n);
  }
  return numbers;
}

/** Bytes of one native frame as the row describes it (samples per pixel from the photometric interpretation). */
function nativeFrameBytes(image: ImageRow): number {
  const samples = /^(MONOCHROME|PALETTE)/.test(image.dicom_photometric ?? '') ? 1 : 3;
  const pixels = (image.dicom_rows ?? 0) * (image.dicom_columns ?? 0) * samples;
  const bits = image.dicom_bits_allocated ?? 8;
  return bits === 1 ? Math.ceil(pixels / 8) : pixels * (bits / 8);
}

/**
 * The images of a rendered series or study: one per frame of each image instance. The frames are
 * added up from the rows first, 413 as soon as they pass MAX_RENDERED_PARTS, so that a few instances
 * declaring 100 000 frames each cost a sum, not a list of their frames.
 */
export function renderedFrames<T extends Pick<ImageRow, 'dicom_frames'>>(
  images: T[],
): Array<{ row: T; frame: number }> {
  let count = 0;
  for (const row of images) {
    count += Math.max(1, row.dicom_frames ?? 1);
    if (count > MAX_RENDERED_PARTS) throw tooLarge(WadoMessages.tooManyRendered);
  }
  return images.flatMap((row) =>
    Array.from({ length: Math.max(1, row.dicom_frames ?? 1) }, (_, i) => ({ row, frame: i + 1 })),
  );
}

/** Declared native pixel data of the whole object. */
const pixelBytesOf = (image: ImageRow) => nativeFrameBytes(image) * (image.dicom_frames ?? 1);

const UID = /^[0-9]+(\.[0-9]+)*$/;
/** A matching key's value, or undefined for universal matching: empty, or `*` alone (PS3.4 C.2.2.2.3–4). */
const universalOrValue = (value: string) => (value === '' || value === '*' ? undefined : value);
const da = (iso: string | null) => (iso ? iso.replace(/-/g, '') : null);
const attr = (vr: string, value: unknown): JsonAttribute =>
  value === null || value === undefined || value === ''
    ? { vr }
    : { vr, Value: Array.isArray(value) ? value : [value] };

/** De-identified sharing, DICOM metadata and read-only DICOMweb (QIDO-RS, WADO-RS) over images the caller may see. */
export function createDicomService({ db, store, engine, images, audit, log, publicUrl }: Deps) {
  const repo = createDicomRepository(db);
  const base = `${publicUrl}/api/dicomweb`;
  const viewerOf = (actor: Actor): Viewer => ({ userId: actor.userId, all: actor.permissions.has('image:view_all') });

  const integrityFailed = (image: ImageRow, err: Error) => {
    log.error({ imageId: image.id, problem: err.message }, 'stored DICOM object cannot be read');
    return new AppError(500, 'integrity_failed', 'The stored file could not be read or failed its integrity check.');
  };
  const wrappedOf = (image: ImageRow) => ({ wrappedKey: image.wrapped_key, keyId: image.key_id });

  /**
   * The stored object for a worker job: read (into one buffer, moved to the worker) only when a
   * worker is free, so that queued jobs hold no copy of the file.
   */
  const loader = (image: ImageRow) => async (): Promise<ArrayBuffer> => {
    try {
      return await store.readAll(image.storage_key, wrappedOf(image), { sha256: image.sha256, size: image.size_bytes });
    } catch (err) {
      if (err instanceof IntegrityError || err instanceof BlobNotFoundError) throw integrityFailed(image, err);
      throw err;
    }
  };

  /** A small object's plaintext in one buffer, checked whole before it is returned (WADO-RS read-ahead). */
  async function readBlob(image: ImageRow): Promise<Uint8Array> {
    return new Uint8Array(await loader(image)());
  }

  /** The plaintext as a stream (WADO-RS instance): never held whole. */
  async function openBlob(image: ImageRow): Promise<Readable> {
    try {
      return await store.open(image.storage_key, wrappedOf(image), { sha256: image.sha256, size: image.size_bytes });
    } catch (err) {
      if (err instanceof IntegrityError || err instanceof BlobNotFoundError) throw integrityFailed(image, err);
      throw err;
    }
  }

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
          (err: unknown) => log.warn({ imageId: image.id, problem: errorMessage(err) }, 'DICOM metadata not stored'),
        );
        return unpackMetadata(packed);
      })().finally(() => making.delete(image.id));
      making.set(image.id, pending);
    }
    return pending;
  }

  /**
   * The filter of a QIDO query: a UID that is not a UID matches nothing rather than erroring.
   * ModalitiesInStudy (`CT` or a list, `CT\MR`) selects studies that have one of them; the studies'
   * modalities and counts still cover all their instances.
   */
  function filterOf(query: QidoQuery, path: { study?: string; series?: string }): InstanceFilter | null {
    const key = (keyword: string, tag: string) => {
      const value = query[keyword] ?? query[tag];
      return typeof value === 'string' ? universalOrValue(value) : undefined;
    };
    const studyUid = path.study ?? key('StudyInstanceUID', '0020000D');
    const seriesUid = path.series ?? key('SeriesInstanceUID', '0020000E');
    const sopUid = key('SOPInstanceUID', '00080018');
    for (const uid of [studyUid, seriesUid, sopUid]) if (uid !== undefined && !UID.test(uid)) return null;
    const patientId = key('PatientID', '00100020');
    const date = key('StudyDate', '00080020');
    const range = date ? studyDateRange(date) : null;
    if (date && !range)
      throw badRequest(WadoMessages.studyDate, [{ field: 'StudyDate', message: WadoMessages.studyDate }]);
    const inStudy = key('ModalitiesInStudy', '00080061')
      ?.split(/[\\,]/)
      .map((m) => m.trim())
      .filter(Boolean);
    return {
      studyUid,
      seriesUid,
      sopUid,
      modality: key('Modality', '00080060'),
      studyModalities: inStudy?.some((m) => m === '*') ? undefined : inStudy,
      patientKey: patientId === undefined ? undefined : (engine.patientKeyOf(patientId) ?? undefined),
      studyDateFrom: range?.from,
      studyDateTo: range?.to,
    };
  }

  const studyUrl = (s: string) => `${base}/studies/${s}`;
  const seriesUrl = (s: string, se: string) => `${studyUrl(s)}/series/${se}`;
  const instanceUrl = (s: string, se: string, i: string) => `${seriesUrl(s, se)}/instances/${i}`;

  async function findInstance(actor: Actor, study: string, series: string, sop: string, action: AuditAction) {
    const found =
      UID.test(study) && UID.test(series) && UID.test(sop)
        ? await repo.instance(viewerOf(actor), { studyUid: study, seriesUid: series, sopUid: sop })
        : undefined;
    if (!found) {
      await audit.recordQuietly({
        userId: actor.userId,
        action,
        table: 'images',
        recordId: null,
        ip: actor.ip,
        status: 'failure',
        reason: 'not visible',
      });
      throw notFound('Instance not found');
    }
    return found;
  }

  /**
   * The visible instances a WADO-RS request names (one for an instance), newest upload of each SOP
   * instance UID; 404 (audited as a failed `action`) when the caller sees none.
   */
  async function visibleInstances(actor: Actor, target: Target, action: AuditAction): Promise<ImageRow[]> {
    if (target.instance) return [await findInstance(actor, target.study, target.series ?? '', target.instance, action)];
    const valid = UID.test(target.study) && (target.series === undefined || UID.test(target.series));
    const rows = valid
      ? await repo.retrievable(
          viewerOf(actor),
          { studyUid: target.study, seriesUid: target.series },
          MAX_RETRIEVE_INSTANCES + 1,
        )
      : [];
    if (!rows.length) {
      await audit.recordQuietly({
        userId: actor.userId,
        action,
        table: 'images',
        recordId: null,
        ip: actor.ip,
        status: 'failure',
        reason: 'not visible',
      });
      throw notFound(target.series ? 'Series not found' : 'Study not found');
    }
    if (rows.length > MAX_RETRIEVE_INSTANCES) throw tooLarge(WadoMessages.tooManyInstances);
    return rows;
  }

  /** One audit row per image served; concurrent appends go in batches (audit.service batchedAppender). */
  async function auditEach(actor: Actor, action: AuditAction, rows: ImageRow[], reason: (row: ImageRow) => string) {
    await Promise.all(
      rows.map((row) =>
        audit.record({
          userId: actor.userId,
          action,
          table: 'images',
          recordId: row.id,
          ip: actor.ip,
          reason: reason(row),
        }),
      ),
    );
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

  /** A rendered frame (RGBA) as JPEG or PNG, cropped and scaled to the viewport when asked; greyscale kept grey. */
  async function encode(image: Rendered, type: RenderedType, options: RenderOptions): Promise<Uint8Array> {
    const { pixels, width, height } = image;
    let pipeline = sharp(Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), {
      raw: { width, height, channels: 4 },
      limitInputPixels: MAX_FRAME_PIXELS,
    });
    const viewport = options.viewport;
    if (viewport?.region) {
      const r = viewport.region;
      if (r.left + r.width > width || r.top + r.height > height) throw badRequest(WadoMessages.viewport);
      pipeline = pipeline.extract(r);
    }
    if (viewport) pipeline = pipeline.resize(viewport.width, viewport.height, { fit: 'inside' });
    pipeline = pipeline.removeAlpha();
    if (image.window) pipeline = pipeline.toColourspace('b-w');
    const out =
      type === 'image/png'
        ? await pipeline.png().toBuffer()
        : await pipeline.jpeg({ quality: options.quality }).toBuffer();
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }

  return {
    /**
     * The Capabilities Description (PS3.18 §8.9): WADL by default, JSON when asked for it; 406 for
     * anything else. It names no object: anyone may read it.
     */
    capabilities(accept: string | undefined): { type: string; body: string } {
      const wanted = capabilitiesType(accept);
      return wanted === 'application/json'
        ? { type: wanted, body: JSON.stringify(capabilitiesJson(base)) }
        : { type: wanted, body: capabilitiesWadl(base) };
    },

    /** Non-PHI attributes for anyone who may see the item; PHI only for viewers of the content. Audited. */
    async metadata(actor: Actor, id: string): Promise<DicomMetadata> {
      const access = await images.accessTo(actor, id);
      if (!access || access.image.content_type !== 'application/dicom' || !access.image.dicom_kind) {
        await audit.recordQuietly({
          userId: actor.userId,
          action: 'dicom.metadata',
          table: 'images',
          recordId: access ? access.image.id : null,
          ip: actor.ip,
          status: 'failure',
          reason: access ? 'not dicom' : 'not visible',
        });
        throw notFound(access ? 'This image is not a DICOM object' : 'Image not found');
      }
      const { image, content } = access;
      let phi: DicomMetadata['phi'] = null;
      if (content) phi = (await metadataOf(image, actor.userId)).phi;
      await audit.record({
        userId: actor.userId,
        action: 'dicom.metadata',
        table: 'images',
        recordId: image.id,
        ip: actor.ip,
        reason: content ? 'with phi' : 'without phi',
      });
      return {
        imageId: image.id,
        // Everyone who may see the item sees its caption on the image card already.
        caption: image.caption,
        sopClassUid: image.dicom_sop_class_uid,
        dicom: dicomItem(image, content),
        phi,
      };
    },

    /**
     * For the sharing module: the de-identified copy of a DICOM image the actor manages, made on
     * first use and reused afterwards (one copy per source). Refused (409) when the image is
     * flagged with burned-in annotation.
     */
    async deidentifiedCopyFor(
      actor: Actor,
      sourceId: string,
    ): Promise<{ id: string; uploaderId: string; patientId: null }> {
      const access = await images.accessTo(actor, sourceId);
      if (!access) throw notFound('Image not found');
      const source = access.image;
      if (source.content_type !== 'application/dicom' || !source.dicom_kind) throw badRequest(DicomMessages.notDicom);
      if (source.deidentified) return { id: source.id, uploaderId: source.uploader_id, patientId: null };
      if (source.dicom_burned_in) throw conflict(DicomMessages.burnedIn);
      const existing = await repo.liveCopyOf(source.id);
      if (existing) return { id: existing.id, uploaderId: existing.uploader_id, patientId: null };

      const copy = await engine.deidentify(loader(source), source.uploader_id, actor.userId);
      if (copy.burnedInAnnotation) throw conflict(DicomMessages.burnedIn);
      const id = randomUUID();
      const stored = await store.putBuffer(id, Buffer.from(copy.bytes));
      try {
        const columns = engine.columnsOf(copy.summary, null);
        await repo.insertImage({
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
        });
        await repo.saveMetadata(
          id,
          sealMetadata({ id, wrapped_key: stored.wrappedKey, key_id: stored.keyId }, copy.metadata),
        );
      } catch (err) {
        await store.storage.delete(id).catch(() => undefined);
        throw err;
      }
      if (copy.summary.kind === 'image') images.enqueueThumbnail(id);
      await audit.record({
        userId: actor.userId,
        action: 'dicom.deidentify',
        table: 'images',
        recordId: id,
        ip: actor.ip,
        reason: `source=${source.id} profile=PS3.15-E-basic`,
      });
      return { id, uploaderId: source.uploader_id, patientId: null };
    },

    /**
     * QIDO-RS at study, series or instance level: the level's default attributes (patient and study
     * attributes from the stored metadata of one instance of each result) plus `includefield`.
     * Offset paging within the first LIST_MAX_WINDOW results. Audited (the query's values are not recorded).
     */
    async search(
      actor: Actor,
      level: QidoLevel,
      path: { study?: string; series?: string },
      query: QidoQuery,
    ): Promise<{ items: DicomJson[]; warnings: string[] }> {
      if (query.offset >= LIST_MAX_WINDOW)
        throw badRequest(WadoMessages.offset, [{ field: 'offset', message: `Must be below ${LIST_MAX_WINDOW}` }]);
      const fields = includeFields(query.includefield);
      const filter = filterOf(query, path);
      const texts = textFiltersOf(query);
      const fuzzy = query.fuzzymatching?.toLowerCase() === 'true';
      const viewer = viewerOf(actor);
      const warnings: string[] = [];
      type Candidate = { sample: ImageRow | undefined; computed: DicomJson };
      /** One page of results at the level (samples looked up for studies and series). */
      const candidates = async (f: InstanceFilter, take: number, skip: number): Promise<Candidate[]> => {
        if (level === 'studies') {
          const found = await repo.studies(viewer, f, take, skip);
          const samples = new Map((await repo.byIds(found.map((r) => r.sample_id))).map((r) => [r.id, r]));
          return found.map((r) => ({
            sample: samples.get(r.sample_id),
            computed: {
              '00080020': attr('DA', da(r.study_date)),
              '00080061': attr('CS', r.modalities.length ? r.modalities : null),
              '00081190': attr('UR', studyUrl(r.study_uid!)),
              '0020000D': attr('UI', r.study_uid),
              '00201206': attr('IS', r.series),
              '00201208': attr('IS', r.instances),
            },
          }));
        }
        if (level === 'series') {
          const found = await repo.series(viewer, f, take, skip);
          const samples = new Map((await repo.byIds(found.map((r) => r.sample_id))).map((r) => [r.id, r]));
          return found.map((r) => ({
            sample: samples.get(r.sample_id),
            computed: {
              '00080060': attr('CS', r.modality),
              '00081190': attr('UR', seriesUrl(r.study_uid!, r.series_uid!)),
              '00180015': attr('CS', r.body_part),
              '0020000D': attr('UI', r.study_uid),
              '0020000E': attr('UI', r.series_uid),
              '00201209': attr('IS', r.instances),
            },
          }));
        }
        const found = await repo.instances(viewer, f, take, skip);
        return found.map((r) => ({
          sample: r,
          computed: {
            '00080016': attr('UI', r.dicom_sop_class_uid),
            '00080018': attr('UI', r.dicom_sop_instance_uid),
            '00080060': attr('CS', r.dicom_modality),
            '00081190': attr('UR', instanceUrl(r.dicom_study_uid!, r.dicom_series_uid!, r.dicom_sop_instance_uid!)),
            '00083002': attr('UI', r.dicom_transfer_syntax),
            '0020000D': attr('UI', r.dicom_study_uid),
            '0020000E': attr('UI', r.dicom_series_uid),
            '00280008': attr('IS', r.dicom_frames),
            '00280010': attr('US', r.dicom_rows),
            '00280011': attr('US', r.dicom_columns),
            '00280100': attr('US', r.dicom_bits_allocated),
          },
        }));
      };
      /** Each candidate with its sample's data set, read one at a time (dataSetsOf). */
      async function* withJson(rows: Candidate[]): AsyncGenerator<[Candidate, DicomJson | null]> {
        const sets = dataSetsOf(
          rows.flatMap((r) => (r.sample ? [r.sample] : [])),
          actor.userId,
          'null',
        );
        try {
          for (const row of rows) yield [row, row.sample ? ((await sets.next()).value ?? null) : null];
        } finally {
          await sets.return(null); // a page that ends early leaves the rest unread
        }
      }
      const page: Array<{ item: DicomJson; sample: ImageRow | undefined }> = [];
      let pageBytes = 0;
      /** Adds a result unless the answer would pass MAX_QIDO_ANSWER_BYTES (the first always goes in). */
      const add = (row: Candidate, json: DicomJson | null): boolean => {
        const item = qidoResult(level, json, fields.tags, row.computed);
        const bytes = Buffer.byteLength(JSON.stringify(item));
        if (page.length && pageBytes + bytes > MAX_QIDO_ANSWER_BYTES) return false;
        pageBytes += bytes;
        page.push({ item, sample: row.sample });
        return true;
      };
      if (filter) {
        let more = false;
        if (!texts.length) {
          // One row more than asked tells whether more results follow (PS3.18 §10.6.3.3.1 warning).
          const rows = await candidates(filter, query.limit + 1, query.offset);
          more = rows.length > query.limit;
          for await (const [row, json] of withJson(rows.slice(0, query.limit)))
            if (!add(row, json)) {
              more = true;
              break;
            }
        } else {
          // Names, accession numbers and descriptions are sealed PHI, never in columns: the caller's
          // candidates (at most the list window) are matched on their stored metadata, one data set
          // at a time, keeping only the page's results.
          const all = await candidates(filter, LIST_MAX_WINDOW + 1, 0);
          if (all.length > LIST_MAX_WINDOW) throw badRequest(WadoMessages.tooBroad);
          const matches = textMatcher(texts, fuzzy);
          let matched = 0;
          for await (const [row, json] of withJson(all)) {
            if (!matches(json)) continue;
            if (matched >= query.offset + query.limit || (matched >= query.offset && !add(row, json))) {
              more = true;
              break;
            }
            matched++;
          }
        }
        if (more) warnings.push(QidoWarnings.more);
      }
      const ignored = unmatchedKeys(query);
      if (ignored.length) warnings.push(QidoWarnings.notMatched(ignored));
      if (fields.unknown) warnings.push(QidoWarnings.unknownFields);
      await audit.record({
        userId: actor.userId,
        action: 'dicomweb.query',
        table: 'images',
        recordId: null,
        ip: actor.ip,
        reason: `level=${level} results=${page.length}`,
      });
      // Results that carry PHI from stored data sets: one row per instance whose data set gave them.
      if (returnsPhi(level, fields.tags))
        await auditEach(
          actor,
          'dicomweb.query',
          page.flatMap((r) => (r.sample ? [r.sample] : [])),
          () => `level=${level} result`,
        );
      return { items: page.map((r) => r.item), warnings };
    },

    /**
     * WADO-RS retrieve of a study, a series or an instance: every visible instance, as stored or as
     * Explicit VR Little Endian, as the Accept header asks (406 when an instance can be sent in no
     * syntax asked for). Each instance is audited before the first byte leaves; the files are opened
     * (or transcoded) one at a time as the answer streams.
     */
    async retrieve(actor: Actor, target: Target, accept: string | undefined): Promise<Part[]> {
      const wanted = retrieveSyntaxes(accept);
      const rows = await visibleInstances(actor, target, 'dicomweb.instance');
      const plans = rows.map((row) => {
        const stored = row.dicom_transfer_syntax ?? TransferSyntax.explicitLE;
        const how = chooseSyntax(wanted, stored);
        const asked = wanted.find((w) => w !== '*') ?? TransferSyntax.explicitLE;
        if (!how) throw notAcceptable(AcceptMessages.notAsStored(stored, asked));
        if (how === 'explicit' && pixelBytesOf(row) > MAX_TRANSCODE_PIXEL_BYTES)
          throw notAcceptable(AcceptMessages.tooLargeToTranscode(stored, MAX_TRANSCODE_PIXEL_BYTES / 2 ** 20));
        return { row, how, stored };
      });
      // A transcoding dcmjs cannot do (an attribute it cannot write) is a 406 like any other syntax we cannot give.
      const transcode = (row: ImageRow, stored: string) =>
        engine.transcode(loader(row), actor.userId).catch((err: unknown) => {
          if (err instanceof AppError && err.code === 'invalid_dicom')
            throw notAcceptable(AcceptMessages.cannotTranscode(stored));
          throw err;
        });
      // The first object is made before the answer starts: its refusal is a clean 4xx, not a cut answer.
      const first = plans[0]!.how === 'explicit' ? await transcode(plans[0]!.row, plans[0]!.stored) : null;
      const how = new Map(plans.map((p) => [p.row, p.how === 'stored' ? 'as-stored' : 'explicit-le']));
      await auditEach(actor, 'dicomweb.instance', rows, (row) => `level=${levelOf(target)} syntax=${how.get(row)}`);
      return plans.map(({ row, how, stored }, i): Part => {
        if (how === 'stored')
          return {
            contentType: `application/dicom; transfer-syntax=${stored}`,
            open: () => (row.size_bytes <= WHOLE_READ_MAX_BYTES ? readBlob(row) : openBlob(row)),
            size: row.size_bytes,
          };
        const contentType = `application/dicom; transfer-syntax=${TransferSyntax.explicitLE}`;
        if (i === 0 && first) return { contentType, bytes: first };
        return { contentType, open: () => transcode(row, stored), size: null };
      });
    },

    /** WADO-RS metadata of a study, series or instance: each visible instance's data set in the DICOM JSON model, bulk data left out. */
    async wadoMetadata(actor: Actor, target: Target, accept: string | undefined): Promise<AsyncIterable<DicomJson>> {
      acceptsDicomJson(accept);
      const rows = await visibleInstances(actor, target, 'dicomweb.metadata');
      // A study's data sets (up to 10 000 of them) are read and sent one at a time, never all held.
      const sets = dataSetsOf(rows, actor.userId, 'throw');
      // The first is read before the audit and the answer: a stored copy that fails its check is a
      // clean error, not a cut answer.
      const first = await sets.next();
      await auditEach(actor, 'dicomweb.metadata', rows, () => `level=${levelOf(target)}`);
      return (async function* () {
        if (first.value) yield first.value;
        for await (const set of sets) if (set) yield set;
      })();
    },

    /**
     * WADO-RS frames (1-based list). Native pixel data: application/octet-stream, little endian,
     * transfer-syntax=1.2.840.10008.1.2.1. Encapsulated: each frame's compressed bitstream as
     * stored, or decoded to native when the client asks for octet-stream in Explicit VR LE
     * (accept.ts chooseFrames).
     */
    async frames(
      actor: Actor,
      study: string,
      series: string,
      sop: string,
      list: string,
      accept: string | undefined,
    ): Promise<Part[]> {
      const numbers = parseFrameList(list);
      const image = await findInstance(actor, study, series, sop, 'dicomweb.frames');
      if (image.dicom_kind !== 'image') throw badRequest('This instance has no pixel data.');
      if (numbers.some((n) => n > (image.dicom_frames ?? 1))) throw badRequest(FramesMessages.outOfRange);
      const stored = image.dicom_transfer_syntax ?? TransferSyntax.explicitLE;
      const choice = chooseFrames(accept, stored, !isNativeSyntax(stored));
      // Native (and decoded) frames have a known size: an answer over the cap is refused before the
      // file is read. Compressed frames sent as stored are counted by the worker as it extracts them.
      if (
        (isNativeSyntax(stored) || choice.decode) &&
        nativeFrameBytes(image) * numbers.length > MAX_FRAMES_ANSWER_BYTES
      )
        throw tooLarge(CoreMessages.answerTooLarge(MAX_FRAMES_ANSWER_BYTES / 2 ** 20));
      const result = await engine.frames(loader(image), numbers, MAX_FRAMES_ANSWER_BYTES, actor.userId, choice.decode);
      await audit.record({
        userId: actor.userId,
        action: 'dicomweb.frames',
        table: 'images',
        recordId: image.id,
        ip: actor.ip,
        reason: `frames=${numbers.length}${choice.decode ? ' decoded' : ''}`,
      });
      return result.frames.map((bytes) => ({ contentType: choice.partType, bytes }));
    },

    /**
     * WADO-RS rendered resources (PS3.18 §10.4.1.1.3): an instance (its first frame) or one frame
     * as a single image; a series or study as multipart/related, one image per frame of each
     * visible image instance, at most MAX_RENDERED_PARTS images and MAX_RENDERED_ANSWER_BYTES in all.
     * Rendered by the DICOM workers (render.ts), encoded here by sharp; audited per instance
     * before the answer leaves.
     */
    async rendered(
      actor: Actor,
      target: Target,
      frame: string | null,
      accept: string | undefined,
      options: RenderOptions,
    ): Promise<{ type: RenderedType; parts: Part[] }> {
      const multipart = !target.instance;
      const type = renderedType(accept, multipart);
      let frameNumber: number | null = null;
      if (frame !== null) {
        const numbers = parseFrameList(frame);
        if (numbers.length !== 1) throw badRequest(WadoMessages.oneFrame);
        frameNumber = numbers[0]!;
      }
      const rows = await visibleInstances(actor, target, 'dicomweb.rendered');
      const images = rows.filter((r) => r.dicom_kind === 'image');
      if (!images.length) throw badRequest(WadoMessages.nothingToRender);
      if (frameNumber !== null && frameNumber > (images[0]!.dicom_frames ?? 1))
        throw badRequest(FramesMessages.outOfRange);
      const jobs = multipart ? renderedFrames(images) : [{ row: images[0]!, frame: frameNumber ?? 1 }];
      const encoded: Uint8Array[] = new Array(jobs.length);
      let total = 0;
      let next = 0;
      let failed = false;
      const lane = async () => {
        while (!failed && next < jobs.length) {
          const i = next++;
          const job = jobs[i]!;
          try {
            const image = await engine.renderFrame(loader(job.row), job.frame, options.window, actor.userId);
            encoded[i] = await encode(image, type, options);
          } catch (err) {
            failed = true;
            throw err;
          }
          total += encoded[i]!.length;
          if (total > MAX_RENDERED_ANSWER_BYTES) {
            failed = true;
            throw tooLarge(WadoMessages.renderedTooLarge);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(RENDER_LANES, jobs.length) }, lane));
      const served = multipart ? images : [jobs[0]!.row];
      await auditEach(actor, 'dicomweb.rendered', served, (row) =>
        multipart ? `level=${levelOf(target)} frames=${row.dicom_frames ?? 1}` : `frame=${jobs[0]!.frame}`,
      );
      return { type, parts: encoded.map((bytes) => ({ contentType: type, bytes })) };
    },
  };
}
export type DicomService = ReturnType<typeof createDicomService>;

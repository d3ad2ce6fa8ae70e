import type { RenderedQuery } from '@medshare/contracts';
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import type { ImageRow } from '../../db/schema.ts';
import { AppError, badRequest, notAcceptable, tooLarge } from '../../errors.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import {
  AcceptMessages,
  type RenderedType,
  acceptsDicomJson,
  chooseFrames,
  chooseSyntax,
  renderedType,
  retrieveSyntaxes,
} from './accept.ts';
import { DicomMessages as CoreMessages, MAX_FRAME_PIXELS, TransferSyntax, isNativeSyntax } from './dicom-core.ts';
import type { DicomEngine } from './dicom-engine.ts';
import type { DicomJson } from './dicom-json.ts';
import { type DicomwebAccess, type Target, levelOf } from './dicomweb-access.ts';
import {
  FramesMessages,
  MAX_FRAMES_ANSWER_BYTES,
  MAX_FRAMES_PER_REQUEST,
  MAX_RENDERED_ANSWER_BYTES,
  MAX_RENDERED_PARTS,
  MAX_TRANSCODE_PIXEL_BYTES,
  MAX_VIEWPORT_PX,
  WHOLE_READ_MAX_BYTES,
  WadoMessages,
} from './dicomweb-limits.ts';
import type { Rendered } from './render.ts';
import type { StoredDicom } from './stored-dicom.ts';

/**
 * One body part of a multipart answer: bytes in hand (views, never copied again), a stream of known
 * size, or a stored object opened (read whole as pieces, streamed, or transcoded) only when the
 * answer reaches it or the few parts before it (the route's read-ahead, bounded in bytes), so that
 * a study's files are never all open, or all in memory, at once. What an opening gives in bytes (a
 * read's plaintext pieces, a transcoded object), and bytes in hand marked `owned` (a worker's answer),
 * are the answer's alone: the route frees each once written, if it is its whole buffer
 * (docs/decisions.md › Memory of a server under load and at rest).
 */
export type Part = { contentType: string } & (
  | { bytes: Uint8Array; owned?: boolean }
  | { stream: Readable; size: number }
  | { open: () => Promise<Readable | Uint8Array | Uint8Array[]>; size: number | null }
);

/** Rendering jobs one rendered series or study runs at once (the pool is shared and fair between users). */
const RENDER_LANES = 2;

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

interface Deps {
  engine: DicomEngine;
  audit: AuditService;
  stored: StoredDicom;
  access: DicomwebAccess;
}

/** WADO-RS (PS3.18 §10.4): instances, metadata, frames and rendered images the caller may see, each audited before it leaves. */
export function createWado({ engine, audit, stored, access }: Deps) {
  const { loader, readBlob, openBlob, dataSetsOf } = stored;
  const { findInstance, visibleInstances, auditEach } = access;

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
        if (i === 0 && first) return { contentType, bytes: first, owned: true };
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
      // The worker's buffer is this answer's own: a single frame (its whole buffer, as a viewer asks
      // for one slice at a time) is freed once written; views of a longer list are left to the collector.
      return result.frames.map((bytes) => ({ contentType: choice.partType, bytes, owned: true }));
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
            // The worker's frame is freed once encoded (dicom-engine.ts › usedOnce).
            encoded[i] = await engine.renderFrame(
              loader(job.row),
              job.frame,
              options.window,
              (image) => encode(image, type, options),
              actor.userId,
            );
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

import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import sharp, { type Sharp } from 'sharp';
import { loggedMessage } from '../../errors.ts';
import type { EncryptedStore } from '../../storage/encrypted-store.ts';
import { MAX_FRAME_PIXELS } from '../dicom/dicom-core.ts';
import type { ThumbnailPixels } from '../dicom/thumbnail-frame.ts';
import type { ImagesRepository, ThumbnailSource as ThumbnailRow } from './images.repository.ts';

export const THUMBNAIL_MAX_PX = 320;
export const THUMBNAIL_TYPE = 'image/jpeg';
/** What a transparent photo's thumbnail is laid on: the cards' preview background. */
const PREVIEW_BACKGROUND = '#212121';

/** A photo's bytes, or a DICOM frame as the worker made it (windowed grey or RGB, or a full RGBA render). */
type ThumbnailSource = ArrayBuffer | ThumbnailPixels;

/** The thumbnail of a photo or a rendered DICOM frame: at most THUMBNAIL_MAX_PX a side, JPEG. */
export function encodeThumbnail(source: ThumbnailSource): Promise<Buffer> {
  const pipeline = source instanceof ArrayBuffer ? photoPipeline(source) : framePipeline(source);
  // JPEG at quality 80 (Huffman tables optimised, sharp's default): a third of WebP's encoding CPU
  // for files about 1.5 times as large (docs/decisions.md › Thumbnails as JPEG).
  return pipeline.jpeg({ quality: 80 }).toBuffer();
}

/**
 * JPEG has no alpha: a photo's transparency (or the full render's opaque alpha) is laid on the dark
 * grey the cards show previews on (MUI grey.900 in web/src/features/images/components/image-card.tsx).
 */
const onPreviewGrey = (pipeline: Sharp) => pipeline.flatten({ background: PREVIEW_BACKGROUND });

function photoPipeline(bytes: ArrayBuffer): Sharp {
  return onPreviewGrey(
    sharp(Buffer.from(bytes), { limitInputPixels: 100_000_000, failOn: 'error' })
      .rotate()
      .resize(THUMBNAIL_MAX_PX, THUMBNAIL_MAX_PX, { fit: 'inside', withoutEnlargement: true }),
  );
}

function framePipeline(frame: ThumbnailPixels): Sharp {
  let pipeline = sharp(Buffer.from(frame.pixels.buffer, frame.pixels.byteOffset, frame.pixels.byteLength), {
    raw: { width: frame.width, height: frame.height, channels: frame.channels },
    limitInputPixels: MAX_FRAME_PIXELS,
  });
  // A DICOM frame comes windowed at its decoded size (thumbnail-frame.ts); libvips shrinks it, with a
  // linear kernel (cheaper than the default Lanczos), in place of the area averaging the worker did in
  // JavaScript (bench/RESULTS.md › Issue 16: thumbnails resized by libvips).
  if (Math.max(frame.width, frame.height) > THUMBNAIL_MAX_PX)
    pipeline = pipeline.resize(THUMBNAIL_MAX_PX, THUMBNAIL_MAX_PX, { fit: 'inside', kernel: 'linear' });
  if (frame.channels === 4) return onPreviewGrey(pipeline);
  // A grey frame stays one channel (sharp would write sRGB): a third less encoding CPU, no chroma.
  return frame.channels === 1 ? pipeline.toColourspace('b-w') : pipeline;
}

/**
 * Keys of derived objects: the image's key plus a suffix, so one prefix holds an image's blobs. Each
 * attempt at a thumbnail writes a key of its own: two makers of one image (a second instance's
 * resumePending, an id queued twice) never write over, or delete, the file the other recorded.
 */
export const thumbnailKey = (storageKey: string, attempt: string = randomBytes(4).toString('hex')) =>
  `${storageKey}-thumb-${attempt}`;

/** Longest a thumbnail waits for uploads in flight to finish before it is made anyway. */
export const THUMBNAIL_MAX_DEFER_MS = 1_000;
/**
 * The rows of up to this many queued thumbnails are read in one query: a burst of uploads queues
 * hundreds, and each thumbnail asked two queries, this read and its update
 * (docs/decisions.md › Thumbnail rows read together). A row read a batch earlier is still right to
 * use: only a deletion or this thumbnailer changes it, and `setThumbnail` records nothing for an
 * image deleted meanwhile.
 */
export const THUMBNAIL_ROWS_PER_READ = 16;
const DEFER_POLL_MS = 20;

/**
 * Makes JPEG/PNG/DICOM thumbnails after the upload's row is committed, one at a time in the background
 * (see docs/decisions.md). A crash leaves the row 'pending'; resumePending picks it up again.
 */
export function createThumbnailer({
  repo,
  store,
  log,
  renderDicom,
  deferWhile = () => false,
}: {
  repo: ImagesRepository;
  store: EncryptedStore;
  log: Logger;
  /**
   * First frame of a DICOM object reduced for a thumbnail of `maxSide` px (runs in the DICOM worker
   * pool, time-limited, within the memory bounds of every DICOM read), handed to `use` (the encode)
   * and freed when it settles. The bytes are read only once a worker is free; the job is queued as
   * the uploader's (the pool is fair between users).
   */
  renderDicom?:
    | (<T>(
        source: () => Promise<ArrayBuffer>,
        maxSide: number,
        use: (frame: ThumbnailPixels) => Promise<T>,
        owner: string,
      ) => Promise<T>)
    | undefined;
  /**
   * True while uploads are in flight. Rendering (10–15 ms of CPU per DICOM image, in the DICOM
   * workers the uploads' inspections also need) then waits, up to THUMBNAIL_MAX_DEFER_MS per
   * thumbnail, so that a burst of uploads is not slowed by work nobody waits for.
   */
  deferWhile?: () => boolean;
}) {
  const queue: string[] = [];
  /** The ids taken from the queue whose thumbnails are being made (resumePending must not queue them again). */
  const taken = new Set<string>();
  let running: Promise<void> | null = null;

  async function make(image: ThumbnailRow): Promise<void> {
    const { id } = image;
    if (image.thumbnail_status !== 'pending') return;
    try {
      // One buffer of the object's size (no chunks plus a joined copy); for DICOM, read when a worker is free.
      const read = () =>
        store.readAll(
          image.storage_key,
          { wrappedKey: image.wrapped_key, keyId: image.key_id },
          { sha256: image.sha256, size: image.size_bytes },
        );
      let output: Buffer;
      if (image.content_type === 'application/dicom') {
        if (!renderDicom) throw new Error('no DICOM renderer');
        // The worker's frame is freed once encoded (dicom-engine.ts › usedOnce).
        output = await renderDicom(read, THUMBNAIL_MAX_PX, encodeThumbnail, image.uploader_id);
      } else output = await encodeThumbnail(await read());
      const key = thumbnailKey(image.storage_key);
      const stored = await store.putBuffer(key, output);
      const recorded = await repo.setThumbnail(id, {
        key,
        wrappedKey: stored.wrappedKey,
        keyId: stored.keyId,
        contentType: THUMBNAIL_TYPE,
        size: stored.size,
        sha256: stored.sha256,
      });
      // Deleted meanwhile, or another maker recorded theirs first: this attempt's file is nobody's.
      if (!recorded) await store.storage.delete(key);
    } catch (err) {
      log.warn({ imageId: id, problem: loggedMessage(err) }, 'thumbnail could not be made');
      // Only a thumbnail still pending fails: another maker's recorded one stays.
      await repo.setThumbnailStatus(id, 'failed', 'pending');
    }
  }

  async function run() {
    while (queue.length) {
      const ids = queue.splice(0, THUMBNAIL_ROWS_PER_READ);
      for (const id of ids) taken.add(id);
      try {
        // A row not answered is an image deleted since it was queued: nothing to make.
        const rows = await repo.getThumbnailSources(ids).catch((err: unknown) => {
          // Left 'pending': the next resumePending (the sweep, a restart) queues them again.
          log.error({ imageIds: ids, problem: loggedMessage(err) }, 'thumbnail rows could not be read');
          return [];
        });
        const byId = new Map(rows.map((row) => [row.id, row]));
        for (const id of ids) {
          const image = byId.get(id);
          if (!image) continue;
          const since = Date.now();
          while (deferWhile() && Date.now() - since < THUMBNAIL_MAX_DEFER_MS)
            await new Promise((r) => setTimeout(r, DEFER_POLL_MS));
          await make(image).catch((err: unknown) =>
            log.error({ imageId: id, problem: loggedMessage(err) }, 'thumbnail job failed'),
          );
        }
      } finally {
        for (const id of ids) taken.delete(id);
      }
    }
  }

  return {
    enqueue(id: string) {
      queue.push(id);
      running ??= run().finally(() => {
        running = null;
      });
    },
    busy: () => running !== null,
    idle: async () => {
      while (running) await running;
    },
    async resumePending() {
      for (const { id } of await repo.pendingThumbnails(1000))
        if (!queue.includes(id) && !taken.has(id)) this.enqueue(id);
    },
  };
}

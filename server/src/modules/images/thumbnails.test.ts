import pino from 'pino';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { EncryptedStore } from '../../storage/encrypted-store.ts';
import type { ImagesRepository } from './images.repository.ts';
import { THUMBNAIL_ROWS_PER_READ, THUMBNAIL_TYPE, createThumbnailer, encodeThumbnail } from './thumbnails.ts';

/** A store whose every object is the same small PNG, and which keeps nothing it is given. */
async function photoStore(): Promise<EncryptedStore> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
    .png()
    .toBuffer();
  return {
    readAll: async () => png.buffer.slice(png.byteOffset, png.byteOffset + png.length),
    putBuffer: async (_key: string, bytes: Buffer) => ({
      wrappedKey: Buffer.alloc(0),
      keyId: 'k',
      size: bytes.length,
      sha256: 'y',
    }),
  } as unknown as EncryptedStore;
}

describe('encodeThumbnail: JPEG, at most 320 px a side', () => {
  it('keeps a reduced grey DICOM frame grey, one channel, at its size', async () => {
    const pixels = new Uint8Array(200 * 100);
    for (let i = 0; i < pixels.length; i++) pixels[i] = i % 200;
    const out = await encodeThumbnail({ width: 200, height: 100, channels: 1, pixels });
    const meta = await sharp(out).metadata();
    expect(THUMBNAIL_TYPE).toBe('image/jpeg');
    expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['jpeg', 200, 100, 1]);
  });

  it('shrinks a larger grey frame to 320 px, one channel, keeping its levels', async () => {
    // 512 × 384: left half black, right half a mid grey (the windowed frame, at its decoded size).
    const pixels = new Uint8Array(512 * 384);
    for (let i = 0; i < pixels.length; i++) pixels[i] = i % 512 >= 256 ? 128 : 0;
    const out = await encodeThumbnail({ width: 512, height: 384, channels: 1, pixels });
    const meta = await sharp(out).metadata();
    expect([meta.width, meta.height, meta.channels]).toEqual([320, 240, 1]);
    const data = await sharp(out).extractChannel(0).raw().toBuffer();
    const row = 120 * 320;
    expect(data[row + 40]).toBeLessThanOrEqual(3);
    expect(Math.abs(data[row + 280]! - 128)).toBeLessThanOrEqual(3);
  });

  it("lays a transparent photo on the cards' dark grey, and shrinks it to 320 px", async () => {
    // 640 × 480, left half transparent black, right half opaque dark blue.
    const rgba = Buffer.alloc(640 * 480 * 4);
    for (let i = 0; i < 640 * 480; i++) if (i % 640 >= 320) rgba.set([10, 20, 120, 255], i * 4);
    const png = await sharp(rgba, { raw: { width: 640, height: 480, channels: 4 } })
      .png()
      .toBuffer();
    const out = await encodeThumbnail(png.buffer.slice(png.byteOffset, png.byteOffset + png.length) as ArrayBuffer);
    const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([320, 240, 3]);
    const at = (x: number, y: number) => [...data.subarray((y * 320 + x) * 3, (y * 320 + x) * 3 + 3)];
    // #212121, as the cards' preview box.
    for (const level of at(40, 120)) expect(Math.abs(level - 0x21)).toBeLessThanOrEqual(3);
    const [r, g, b] = at(280, 120);
    expect(r).toBeLessThan(30);
    expect(g).toBeLessThan(40);
    expect(b).toBeGreaterThan(100);
  });

  it('draws the full render (RGBA, opaque) without its alpha channel', async () => {
    const pixels = new Uint8Array(400 * 400 * 4).fill(255);
    for (let i = 0; i < 400 * 400; i++) pixels.set([200, 30, 30, 255], i * 4);
    const out = await encodeThumbnail({ width: 400, height: 400, channels: 4, pixels });
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height, meta.channels, meta.hasAlpha]).toEqual(['jpeg', 320, 320, 3, false]);
  });
});

describe('the thumbnailer', () => {
  it("encodes the DICOM worker's frame while the renderer holds it, and stores the thumbnail", async () => {
    const frame = { width: 64, height: 64, channels: 1 as const, pixels: new Uint8Array(64 * 64).fill(90) };
    const stored: Array<{ key: string; bytes: Buffer }> = [];
    let recorded: unknown = null;
    const row = {
      id: 'image-1',
      storage_key: 'blob-1',
      content_type: 'application/dicom',
      thumbnail_status: 'pending',
      uploader_id: 'user-1',
      wrapped_key: Buffer.alloc(0),
      key_id: 'k',
      sha256: 'x',
      size_bytes: 10,
    };
    const repo = {
      getThumbnailSources: async (ids: readonly string[]) => (ids.includes(row.id) ? [row] : []),
      setThumbnail: async (_id: string, thumb: unknown) => ((recorded = thumb), true),
      setThumbnailStatus: async () => undefined,
    } as unknown as ImagesRepository;
    const store = {
      readAll: async () => new ArrayBuffer(10),
      putBuffer: async (key: string, bytes: Buffer) => {
        stored.push({ key, bytes });
        return { wrappedKey: Buffer.alloc(0), keyId: 'k', size: bytes.length, sha256: 'y' };
      },
    } as unknown as EncryptedStore;
    const thumbnailer = createThumbnailer({
      repo,
      store,
      log: pino({ level: 'silent' }),
      // The engine frees the frame once `use` has settled (dicom-engine.test.ts): the encode must be that `use`.
      renderDicom: async (_source, _maxSide, use) => {
        const output = await use(frame);
        frame.pixels.fill(0);
        return output;
      },
    });
    thumbnailer.enqueue('image-1');
    await thumbnailer.idle();
    expect(stored.map((s) => s.key)).toEqual([expect.stringMatching(/^blob-1-thumb-[0-9a-f]{8}$/)]);
    expect((await sharp(stored[0]!.bytes).metadata()).width).toBe(64);
    expect(recorded).toMatchObject({ key: stored[0]!.key, contentType: THUMBNAIL_TYPE });
    // Encoded from the frame as it was while held: mid-grey, not the zeros written after `use`.
    const { data } = await sharp(stored[0]!.bytes).greyscale().raw().toBuffer({ resolveWithObject: true });
    expect(Math.abs(data[0]! - 90)).toBeLessThan(8);
  });

  it('reads the rows of the queued thumbnails together, a batch at a time, and makes each in queue order', async () => {
    const count = THUMBNAIL_ROWS_PER_READ + 4;
    const ids = Array.from({ length: count }, (_, i) => `image-${i}`);
    // image-3 was deleted after it was queued (no row); image-5's thumbnail was made meanwhile.
    const rowOf = (id: string) =>
      id === 'image-3'
        ? []
        : [
            {
              id,
              storage_key: `blob-${id}`,
              content_type: 'image/png',
              thumbnail_status: id === 'image-5' ? 'ready' : 'pending',
              uploader_id: 'user-1',
              wrapped_key: Buffer.alloc(0),
              key_id: 'k',
              sha256: 'x',
              size_bytes: 10,
            },
          ];
    const reads: string[][] = [];
    const made: string[] = [];
    const repo = {
      getThumbnailSources: async (asked: readonly string[]) => (reads.push([...asked]), asked.flatMap(rowOf)),
      setThumbnail: async (id: string) => (made.push(id), true),
      setThumbnailStatus: async () => undefined,
      pendingThumbnails: async () => ids.map((id) => ({ id })),
    } as unknown as ImagesRepository;
    const thumbnailer = createThumbnailer({ repo, store: await photoStore(), log: pino({ level: 'silent' }) });
    for (const id of ids) thumbnailer.enqueue(id);
    // Asked while the first batch is being made: nothing already queued or taken is queued again.
    await thumbnailer.resumePending();
    await thumbnailer.idle();

    // The first enqueue starts a batch at once (of what is queued then); the others wait and go together.
    expect(reads.flat()).toEqual(ids);
    expect(Math.max(...reads.map((r) => r.length))).toBe(THUMBNAIL_ROWS_PER_READ);
    expect(reads.length).toBeLessThanOrEqual(3);
    expect(made).toEqual(ids.filter((id) => id !== 'image-3' && id !== 'image-5'));
  });

  it('leaves the rows it could not read pending and goes on with the next batch', async () => {
    const ids = Array.from({ length: THUMBNAIL_ROWS_PER_READ + 4 }, (_, i) => `image-${i}`);
    let failed: readonly string[] = [];
    const made: string[] = [];
    const statuses: string[] = [];
    const repo = {
      getThumbnailSources: async (asked: readonly string[]) => {
        if (!failed.length) {
          failed = asked;
          throw new Error('connection reset');
        }
        return asked.map((id) => ({ id, storage_key: id, content_type: 'image/png', thumbnail_status: 'pending' }));
      },
      setThumbnail: async (id: string) => (made.push(id), true),
      setThumbnailStatus: async (_id: string, status: string) => void statuses.push(status),
    } as unknown as ImagesRepository;
    const thumbnailer = createThumbnailer({ repo, store: await photoStore(), log: pino({ level: 'silent' }) });
    for (const id of ids) thumbnailer.enqueue(id);
    await thumbnailer.idle();
    expect(failed.length).toBeGreaterThan(0);
    expect(made).toEqual(ids.filter((id) => !failed.includes(id)));
    // Not marked failed: a later resumePending queues them again.
    expect(statuses).toEqual([]);
  });
});

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fixture } from '../images/images.test-helpers.ts';
import { createDicomEngine, releaseMoved } from './dicom-engine.ts';
import { createDicomPool } from './dicom-pool.ts';

const small = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm').data;

describe('releaseMoved', () => {
  it('frees a buffer owned whole at once, and leaves alone what it does not own whole', () => {
    const moved = new Uint8Array(new ArrayBuffer(4096)).fill(1);
    releaseMoved(moved);
    expect(moved.byteLength).toBe(0);
    expect((moved.buffer as ArrayBuffer).detached).toBe(true);
    releaseMoved(moved); // twice: nothing more to do

    // A small Buffer is a view of a slab of Node's pool that others share: releasing it must not touch them.
    const a = Buffer.from('first');
    expect(a.byteLength).toBeLessThan(a.buffer.byteLength);
    const neighbour = Buffer.from(a.buffer, a.byteOffset === 0 ? a.byteLength : 0, 4).fill(9);
    releaseMoved(a);
    expect(a.toString()).toBe('first');
    expect([...neighbour]).toEqual([9, 9, 9, 9]);
    // Part of a buffer is not a buffer owned whole either.
    const whole = new Uint8Array(64).fill(7);
    releaseMoved(whole.subarray(8));
    expect(whole.buffer.byteLength).toBe(64);
  });
});

describe('the engine frees what a worker moved here once its consumer is done', () => {
  const engineOf = () =>
    createDicomEngine({
      pool: createDicomPool({ log: pino({ level: 'silent' }), size: 1 }),
      masterKey: Buffer.alloc(32),
    });

  it('thumbnail: the frame is whole inside `use`, freed after it, also when `use` throws', async () => {
    const engine = engineOf();
    try {
      let seen: Uint8Array | null = null;
      const size = await engine.thumbnail(new Uint8Array(small), 64, async (f) => {
        seen = f.pixels;
        return f.pixels.byteLength;
      });
      expect(size).toBeGreaterThan(0);
      expect((seen!.buffer as ArrayBuffer).detached).toBe(true);
      await expect(
        engine.thumbnail(new Uint8Array(small), 64, async (f) => {
          seen = f.pixels;
          throw new Error('encode failed');
        }),
      ).rejects.toThrow('encode failed');
      expect((seen!.buffer as ArrayBuffer).detached).toBe(true);
    } finally {
      await engine.close();
    }
  });

  it('renderFrame: the same for a rendered frame', async () => {
    const engine = engineOf();
    try {
      let seen: Uint8Array | null = null;
      const width = await engine.renderFrame(new Uint8Array(small), 1, null, async (image) => {
        seen = image.pixels;
        expect(image.pixels.byteLength).toBe(image.width * image.height * 4);
        return image.width;
      });
      expect(width).toBeGreaterThan(0);
      expect((seen!.buffer as ArrayBuffer).detached).toBe(true);
    } finally {
      await engine.close();
    }
  });

  it("inspectUpload: the metadata is handed once to withMetadata's callback and freed after it", async () => {
    const engine = engineOf();
    try {
      const checked = await engine.inspectUpload(new Uint8Array(small));
      expect(checked.columns.dicom_kind).toBe('image');
      let seen: Uint8Array | null = null;
      const length = checked.withMetadata((metadata) => ((seen = metadata), metadata.byteLength));
      expect(length).toBeGreaterThan(0);
      expect((seen!.buffer as ArrayBuffer).detached).toBe(true);
      expect(() => checked.withMetadata((m) => m)).toThrow('used already');
      // An async callback would seal freed bytes after its first await: refused.
      const again = await engine.inspectUpload(new Uint8Array(small));
      // @ts-expect-error a callback that returns a promise is not accepted
      expect(() => again.withMetadata(async (m) => m.byteLength)).toThrow('synchronous callback');
      const refused = await engine.inspectUpload(new Uint8Array(small));
      refused.discard();
      expect(() => refused.withMetadata((m) => m)).toThrow('used already');
    } finally {
      await engine.close();
    }
  });
});

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fixture } from '../images/images.test-helpers.ts';
import { createDicomEngine, derivedDicomKeys } from './dicom-engine.ts';
import { createDicomPool } from './dicom-pool.ts';

const small = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm').data;

describe('the engine frees what a worker moved here once its consumer is done', () => {
  const engineOf = () =>
    createDicomEngine({
      pool: createDicomPool({ log: pino({ level: 'silent' }), size: 1 }),
      keys: derivedDicomKeys(Buffer.alloc(32)),
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

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fixture } from '../images/images.test-helpers.ts';
import { createDicomEngine, releaseMoved } from './dicom-engine.ts';
import { createDicomPool } from './dicom-pool.ts';

const small = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm').data;

describe('releaseMoved', () => {
  it("frees a worker's moved bytes at once, and leaves alone what it does not own whole", async () => {
    const engine = createDicomEngine({
      pool: createDicomPool({ log: pino({ level: 'silent' }), size: 1 }),
      masterKey: Buffer.alloc(32),
    });
    const frame = await engine.thumbnail(new Uint8Array(small), 320).finally(() => engine.close());
    expect(frame.pixels.byteLength).toBeGreaterThan(0);
    releaseMoved(frame.pixels);
    expect(frame.pixels.buffer.byteLength).toBe(0);
    expect((frame.pixels.buffer as ArrayBuffer).detached).toBe(true);
    releaseMoved(frame.pixels); // twice: nothing more to do

    // Two small Buffers share one slab of Node's pool: releasing one must not touch the other.
    const a = Buffer.from('first');
    const b = Buffer.from('second');
    expect(a.buffer).toBe(b.buffer);
    releaseMoved(a);
    expect(b.toString()).toBe('second');
    expect(a.toString()).toBe('first');
    // Part of a buffer is not a buffer owned whole either.
    const whole = new Uint8Array(64).fill(7);
    releaseMoved(whole.subarray(8));
    expect(whole.buffer.byteLength).toBe(64);
  });
});

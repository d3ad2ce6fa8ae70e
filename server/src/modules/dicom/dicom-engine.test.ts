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

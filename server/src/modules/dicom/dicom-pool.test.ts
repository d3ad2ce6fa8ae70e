import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { fixture } from '../images/images.test-helpers.ts';
import { type DicomPool, createDicomPool } from './dicom-pool.ts';

/**
 * The pool grows only for jobs that wait, and shrinks again (dicom-pool.ts, GROW_AFTER_MS and
 * SPARE_IDLE_MS; docs/decisions.md › Memory of a server under load and at rest).
 */
const small = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm').data;
const copy = () => new Uint8Array(small).buffer;
const inspect = (pool: DicomPool, bytes: ArrayBuffer | (() => Promise<ArrayBuffer>) = copy()) =>
  pool.run({ op: 'inspect', bytes, owner: 'user-a', timeoutMs: 60_000 });

/** A job's bytes that arrive only once `release` is called: the job holds its worker until then. */
function heldBytes() {
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (release = resolve));
  return { read: () => arrived.then(copy), release };
}

let pool: DicomPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('DICOM pool size', () => {
  it('serves jobs that do not wait long with its first worker alone', async () => {
    pool = createDicomPool({ log: pino({ level: 'silent' }), size: 2, growAfterMs: 1_000 });
    await inspect(pool); // the first worker starts with the first job
    // Pairs at once: the second of each waits for the first, milliseconds, not growAfterMs.
    for (let i = 0; i < 10; i++) await Promise.all([inspect(pool), inspect(pool)]);
    expect(pool.workers()).toBe(1);
    expect(await pool.memory()).toHaveLength(1);
  });

  it('starts a second worker for a job stuck behind a long one, and stops it once idle', async () => {
    pool = createDicomPool({ log: pino({ level: 'silent' }), size: 2, growAfterMs: 50, spareIdleMs: 300 });
    await inspect(pool);
    // A job whose bytes arrive only when the test says so holds the first worker as a long decode would.
    const held = heldBytes();
    const long = inspect(pool, held.read);
    const queuedAt = performance.now();
    await inspect(pool);
    // It waited for the growth (and the spare's start), not for the long job, still held.
    expect(performance.now() - queuedAt).toBeGreaterThanOrEqual(50);
    expect(pool.workers()).toBe(2);
    held.release();
    await long;
    // The spare, idle for spareIdleMs, stops; the first worker stays.
    const deadline = Date.now() + 10_000;
    while (pool.workers() > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(pool.workers()).toBe(1);
    await inspect(pool);
    expect(pool.workers()).toBe(1);
  }, 30_000);

  it("starts a second worker when the first worker's first job is the long one", async () => {
    pool = createDicomPool({ log: pino({ level: 'silent' }), size: 2, growAfterMs: 50 });
    const held = heldBytes();
    const long = inspect(pool, held.read);
    await inspect(pool);
    expect(pool.workers()).toBe(2);
    held.release();
    await long;
  }, 30_000);

  it('never starts more than its size', async () => {
    pool = createDicomPool({ log: pino({ level: 'silent' }), size: 2, growAfterMs: 20 });
    const slow = () => new Promise<ArrayBuffer>((resolve) => setTimeout(() => resolve(copy()), 600));
    await Promise.all([inspect(pool, slow), inspect(pool, slow), inspect(pool, slow), inspect(pool, slow)]);
    expect(pool.workers()).toBe(2);
  }, 30_000);
});

import { StowFailureReason } from '@medshare/contracts';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { unsupportedType } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';
import { fixture } from '../images/images.test-helpers.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import type { Ingest } from './ingest.ts';
import type { IngestRepository } from './ingest.repository.ts';
import { createStowService } from './stow.service.ts';

/**
 * STOW-RS memory bound (`docs/security.md` › Memory bounds): a body of many tiny parts must not grow
 * the heap with the number of parts. The heap is measured as its live size (after a full GC) sampled
 * every 20 ms during the request, so that what the request keeps while it runs is seen, not the
 * garbage it leaves.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 1024 * 1024;

async function peakHeapGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthMiB: number; seconds: number }> {
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  let gcSeconds = 0;
  const measure = () => {
    const start = performance.now();
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    const took = performance.now() - start;
    gcSeconds += took / 1000;
    return took;
  };
  // Every 20 ms, or less often when a full GC is slow (the app's heap), so that it takes at most a fifth of the time.
  let timer: NodeJS.Timeout;
  const sample = () => {
    timer = setTimeout(sample, Math.max(20, 4 * measure()));
  };
  timer = setTimeout(sample, 20);
  const started = performance.now();
  try {
    const result = await work();
    clearTimeout(timer);
    // The time the request took, less the time spent in the sampling GCs.
    const seconds = (performance.now() - started) / 1000 - gcSeconds;
    measure();
    return { result, growthMiB: (peak - before) / MiB, seconds };
  } finally {
    clearTimeout(timer);
  }
}

const BOUNDARY = 'x';
/** `count` empty parts (each `\r\n--x\r\nContent-Type: application/dicom\r\n\r\n`, 47 bytes) after `first`. */
function tinyParts(count: number, first: Buffer[] = []) {
  const open = Buffer.from(`--${BOUNDARY}\r\nContent-Type: application/dicom\r\n\r\n`);
  const chunks: Buffer[] = [];
  for (const data of first) chunks.push(open, data, Buffer.from('\r\n'));
  const empty = Buffer.concat([open, Buffer.from('\r\n')]);
  chunks.push(Buffer.alloc(empty.length * count));
  for (let i = 0; i < count; i++) empty.copy(chunks[chunks.length - 1]!, i * empty.length);
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    contentType: `multipart/related; type="application/dicom"; boundary=${BOUNDARY}`,
  };
}

type Item = Record<string, { Value?: unknown[] }>;
const failedOf = (json: Record<string, { Value?: unknown[] }>) => (json['00081198']?.Value ?? []) as Item[];
const reasonOf = (item: Item) => item['00081197']?.Value?.[0];

describe('STOW-RS: a body of many tiny parts (security › Memory bounds)', () => {
  let t: TestApp;
  let doc: SignedIn;
  let patient: SignedIn;
  beforeAll(async () => {
    t = await createTestApp();
    doc = await newUser(t, 'healthProvider');
    patient = await newUser(t, 'patient');
  });
  afterAll(async () => t?.close());

  it('stops reading after 2 × max_import_files parts: one instance and 100 000 empty parts answer 202 in bounded time and heap, the failed list bounded by the limit plus one summary item', async () => {
    const db = t.app.ctx.database.db;
    await db.updateTable('app_settings').set({ value: '100' }).where('name', '=', 'max_import_files').execute();
    t.app.ctx.services.settings.invalidate();
    const instance = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm');
    const body = tinyParts(100_000, [instance.data]);
    const {
      result: res,
      growthMiB,
      seconds,
    } = await peakHeapGrowth(() =>
      t.request({
        method: 'POST',
        url: `/api/dicomweb/studies?patientId=${patient.user.id}`,
        payload: body.payload,
        headers: { 'content-type': body.contentType },
        token: doc.token,
      }),
    );
    console.warn(
      `STOW-RS of 1 instance + 100 000 empty parts (${(body.payload.length / MiB).toFixed(1)} MiB, max_import_files 100): ` +
        `${res.statusCode} in ${seconds.toFixed(2)} s (less sampling GCs), peak live heap +${growthMiB.toFixed(1)} MiB`,
    );
    expect(res.statusCode, res.body).toBe(202);
    expect(growthMiB).toBeLessThan(32);
    expect(seconds).toBeLessThan(10);
    // The first part is stored; parts 2–100 are each listed (empty: cannot understand); parts
    // 101–200 are counted in one summary item; part 201 ends the reading.
    const json = res.json();
    expect(json['00081199']?.Value).toHaveLength(1);
    const failed = failedOf(json);
    expect(failed).toHaveLength(100);
    expect(failed.slice(0, 99).every((f) => reasonOf(f) === StowFailureReason.cannotUnderstand)).toBe(true);
    expect(failed[99]).toEqual({ '00081197': { vr: 'US', Value: [StowFailureReason.outOfResources] } });
    const warning = String(res.headers.warning);
    expect(warning).toContain('At most 100 instances per request');
    expect(warning).toContain('100 more parts were read and not stored');
    expect(warning).toContain('stopped after 200 parts');
    const rows = await db
      .selectFrom('images')
      .select('id')
      .where('uploader_id', '=', doc.user.id)
      .where('deleted_at', 'is', null)
      .execute();
    expect(rows).toHaveLength(1);
  }, 120_000);
});

describe('STOW-RS service: parts past max_import_files are only counted', () => {
  // The upload pipeline replaced by a stub that reads each part and refuses it as the pipeline would
  // (an AppError with its stack), so that 50 000 parts within the limit take seconds, not minutes.
  const ingest: Ingest = async (_actor, incoming) => {
    incoming.stream.resume();
    await finished(incoming.stream).catch(() => undefined);
    return {
      stored: false,
      error: unsupportedType('not DICOM'),
      head: {
        sopClassUid: null,
        sopInstanceUid: null,
        studyUid: null,
        seriesUid: null,
        modality: null,
        patientId: null,
        reached: false,
      },
    };
  };
  const service = createStowService({
    ingest,
    settings: { effective: async () => ({ maxImportFiles: 50_000, maxImportMb: 2048 }) } as unknown as SettingsService,
    repo: { activePatient: async (id: string) => ({ id }) } as unknown as IngestRepository,
    publicUrl: 'http://medshare.test',
    log: pino({ level: 'silent' }),
  });
  const actor = { userId: crypto.randomUUID(), permissions: new Set(['image:upload']) } as unknown as Actor;

  it('100 000 tiny parts with max_import_files 50 000: the second half is counted without a per-part object; the answer lists 50 000 failures plus one summary item', async () => {
    const body = tinyParts(100_000);
    const { result, growthMiB, seconds } = await peakHeapGrowth(() =>
      service.store(actor, {
        study: null,
        patient: { query: crypto.randomUUID(), header: undefined },
        contentType: body.contentType,
        contentLength: body.payload.length,
        // As a socket delivers it: 64 KiB at a time.
        body: Readable.from(
          Array.from({ length: Math.ceil(body.payload.length / 65_536) }, (_, i) =>
            body.payload.subarray(i * 65_536, (i + 1) * 65_536),
          ),
        ),
        ip: null,
      }),
    );
    console.warn(
      `STOW-RS service, 100 000 tiny parts, max_import_files 50 000: ${seconds.toFixed(2)} s, peak live heap +${growthMiB.toFixed(1)} MiB`,
    );
    expect(result.status).toBe(409);
    const failed = failedOf(result.dataset);
    expect(failed).toHaveLength(50_001);
    expect(failed[50_000]).toEqual({ '00081197': { vr: 'US', Value: [StowFailureReason.outOfResources] } });
    expect(result.warning).toContain('50000 more parts were read and not stored');
    expect(result.warning).not.toContain('stopped');
    // The 50 001 answer items measured about 10 MiB; the counted half adds nothing per part.
    expect(growthMiB).toBeLessThan(32);
    expect(seconds).toBeLessThan(60);
  }, 180_000);
});

import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import type { AppContext } from '../../app-context.ts';
import type { Db } from '../../db/db.ts';
import { fixture, uploadFile } from '../images/images.test-helpers.ts';
import { DicomMessages, MAX_FRAME_PIXELS, parseDicom } from './dicom-core.ts';
import { createDicomEngine, derivedDicomKeys } from './dicom-engine.ts';
import { DicomBusy, createDicomPool } from './dicom-pool.ts';
import { FramesMessages, MAX_FRAMES_ANSWER_BYTES } from './dicomweb-limits.ts';
import { PARSED_BYTES_PER_SCAVENGE } from './worker-collection.ts';
import { deflatedDicom } from './memory-test-helpers.ts';

/*
 * docs/security.md › Memory bounds: the attack of issue 14 (a 97 KB deflated upload that inflates
 * to a 100 MB frame, then asked for as frames/1,1,1,…) and a test per route that reads pixel data.
 */

let t: TestApp;
let doc: SignedIn;
let other: SignedIn;
/** 2048 × 2048 × 8-bit × 24 frames: 96 MiB of pixel data in a ~100 KB deflated upload, within the bounds. */
let big: Buffer;
let bigId: string;
let bigPath: string;
const MiB = 2 ** 20;

const ctxOf = (app: TestApp) => (app.app as unknown as { ctx: AppContext }).ctx;
const dbOf = (app: TestApp): Db => ctxOf(app).database.db;
const dcmFile = (data: Buffer, name = 'bound.dcm') => ({ name, type: 'application/dicom', data });

beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
  other = await newUser(t, 'healthProvider');
  big = await deflatedDicom({ rows: 2048, columns: 2048, frames: 24 });
  const res = await uploadFile(t, doc.token, dcmFile(big), { caption: 'within the bounds' });
  expect(res.statusCode, res.body).toBe(201);
  bigId = res.json().data.id;
  const list = await t.request({ method: 'GET', url: '/api/dicomweb/instances', token: doc.token });
  const item = (list.json() as Array<Record<string, { Value?: string[] }>>)[0]!;
  bigPath = `/api/dicomweb/studies/${item['0020000D']!.Value![0]}/series/${item['0020000E']!.Value![0]}/instances/${item['00080018']!.Value![0]}`;
}, 120_000);
afterAll(async () => t?.close());

function blobFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(join(t.dataDir, 'blobs'));
  return out;
}

/** Peak resident memory of this process since the last reset (Linux: /proc/self/status VmHWM, reset through clear_refs). */
function resetPeak(): number {
  writeFileSync('/proc/self/clear_refs', '5');
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
}
const peak = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

describe('upload bounds', () => {
  it('refuses the 97 KB deflated 10 000 × 10 000 upload of issue 14 (413), storing nothing', async () => {
    const attack = await deflatedDicom({ rows: 10_000, columns: 10_000 });
    expect(attack.length).toBeLessThan(120_000);
    await ctxOf(t).services.images.idle();
    const before = blobFiles().length;
    const res = await uploadFile(t, doc.token, dcmFile(attack), { caption: 'attack' });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().message).toBe(DicomMessages.tooLarge);
    expect(res.json().message).toContain(MAX_FRAME_PIXELS.toLocaleString('en-US'));
    expect(blobFiles().length).toBe(before);
  });

  it('refuses declared pixel data over 256 MiB (4096 × 4096 × 20 frames) before reading the pixels (413)', async () => {
    const res = await uploadFile(
      t,
      doc.token,
      dcmFile(await deflatedDicom({ rows: 4096, columns: 4096, frames: 20, pixelBytes: MiB })),
      { caption: 'declared too large' },
    );
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().message).toBe(DicomMessages.pixelBytes(320));
  });

  it('never inflates past the bound: a header that declares 64 × 64 over 300 MiB of deflated data is refused (413)', async () => {
    const lying = await deflatedDicom({ rows: 64, columns: 64, pixelBytes: 300 * MiB });
    const res = await uploadFile(t, doc.token, dcmFile(lying), { caption: 'lying header' });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().message).toBe(DicomMessages.inflated);
  });

  it('every worker operation (inspect, render, frames, metadata) refuses the attack file alike', async () => {
    const engine = createDicomEngine({
      pool: createDicomPool({ log: pino({ level: 'silent' }) }),
      keys: derivedDicomKeys(Buffer.alloc(32)),
    });
    try {
      const attack = await deflatedDicom({ rows: 10_000, columns: 10_000 });
      for (const run of [
        () => engine.inspect(attack),
        () => engine.render(attack),
        () => engine.frames(attack, [1], MAX_FRAMES_ANSWER_BYTES),
        () => engine.metadata(attack),
      ])
        await expect(run()).rejects.toMatchObject({ status: 413, message: DicomMessages.tooLarge });
    } finally {
      await engine.close();
    }
  });
});

describe('WADO-RS frames', () => {
  const frames = (list: string, token = doc.token) =>
    t.request({ method: 'GET', url: `${bigPath}/frames/${list}`, token });

  it('refuses repeats, zero, non-numbers, empty items and out-of-range numbers with 400', async () => {
    const cases: Array<[string, string]> = [
      ['1,1,1', FramesMessages.repeated(1)],
      [Array(20).fill('1').join(','), FramesMessages.repeated(1)],
      ['0', FramesMessages.list],
      ['a', FramesMessages.list],
      ['1,,2', FramesMessages.list],
      ['1.5', FramesMessages.list],
      ['-1', FramesMessages.list],
      ['25', FramesMessages.outOfRange],
    ];
    for (const [list, message] of cases) {
      const res = await frames(list);
      expect(res.statusCode, list).toBe(400);
      expect(res.json().message, list).toBe(message);
    }
  });

  it('refuses an answer over 64 MiB (17 frames of 4 MiB) with 413 and the advice to ask for fewer', async () => {
    const res = await frames(Array.from({ length: 17 }, (_, i) => i + 1).join(','));
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toBe(DicomMessages.answerTooLarge(64));
  });

  it('answers 16 frames (64 MiB) as a streamed multipart body of the right length', async () => {
    const res = await frames(Array.from({ length: 16 }, (_, i) => i + 1).join(','));
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    const boundary = /boundary=([^;\s]+)/.exec(String(res.headers['content-type']))![1]!;
    expect(res.rawPayload.toString('latin1').split(`--${boundary}\r\n`).length - 1).toBe(16);
    expect(res.rawPayload.length).toBeGreaterThan(64 * MiB);
  });

  it('holds memory within bounds: 8 concurrent 64 MiB answers over a 96 MiB file from two users', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const list = Array.from({ length: 16 }, (_, i) => i + 1).join(',');
    // Two owners, each reading an object of their own (the pool queues them fairly).
    const mine = await uploadFile(
      t,
      other.token,
      dcmFile(await deflatedDicom({ rows: 2048, columns: 2048, frames: 24 })),
      {
        caption: 'second owner',
      },
    );
    expect(mine.statusCode).toBe(201);
    const theirs = (
      (await t.request({ method: 'GET', url: '/api/dicomweb/instances', token: other.token })).json() as Array<
        Record<string, { Value?: string[] }>
      >
    )[0]!;
    const theirPath = `/api/dicomweb/studies/${theirs['0020000D']!.Value![0]}/series/${theirs['0020000E']!.Value![0]}/instances/${theirs['00080018']!.Value![0]}`;
    global.gc?.();
    const base = resetPeak();
    const read = async (path: string, token: string) => {
      const res = await fetch(`${address}${path}/frames/${list}`, { headers: { authorization: `Bearer ${token}` } });
      let bytes = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
      return { status: res.status, bytes };
    };
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? read(theirPath, other.token) : read(bigPath, doc.token))),
    );
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.bytes).toBeGreaterThan(64 * MiB);
    }
    const growth = peak() - base;
    console.warn(`frames: peak RSS growth ${Math.round(growth / MiB)} MiB for 8 × 64 MiB answers`);
    // Two workers inflating (2 × 96 MiB, plus the copy with the meta prefix) and at most 8 answers of 64 MiB in flight.
    expect(growth).toBeLessThan(1024 * MiB);
  }, 120_000);
});

describe('every route that reads pixel data stays within the bounds', () => {
  it('thumbnail: made from the first frame only, and served', async () => {
    await ctxOf(t).services.images.idle();
    const res = await t.request({ method: 'GET', url: `/api/images/${bigId}/thumbnail`, token: doc.token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
  });

  it('analysis input: rendered in one worker job', async () => {
    const res = await t.request({ method: 'GET', url: `/api/analysis/${bigId}`, token: doc.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.metadata ?? res.json().data).toBeTruthy();
  });

  it('WADO-RS instance: streamed, byte-identical, with its length', async () => {
    const res = await t.request({ method: 'GET', url: bigPath, token: doc.token });
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.rawPayload.includes(big)).toBe(true);
  });

  it('metadata (both routes): read from the sealed copy stored at upload, without the file', async () => {
    const db = dbOf(t);
    const row = await db.selectFrom('dicom_metadata').select('sealed').where('image_id', '=', bigId).executeTakeFirst();
    expect(row).toBeDefined();
    // Sealed: the patient's name is nowhere in the stored bytes.
    expect(Buffer.from(row!.sealed).includes(Buffer.from('Bound^Memory'))).toBe(false);
    const stored = blobFiles().filter((p) => p.includes(bigId) && !/-thumb-[0-9a-f]{8}$/.test(p));
    expect(stored.length).toBe(1);
    const saved = readFileSync(stored[0]!);
    rmSync(stored[0]!);
    try {
      const meta = await t.request({ method: 'GET', url: `/api/images/${bigId}/dicom/metadata`, token: doc.token });
      expect(meta.statusCode, meta.body).toBe(200);
      expect(meta.json().data.phi.patientName).toBe('Bound^Memory');
      const wado = await t.request({ method: 'GET', url: `${bigPath}/metadata`, token: doc.token });
      expect(wado.statusCode, wado.body).toBe(200);
      expect(wado.json()[0]['00280008'].Value).toEqual([24]);
    } finally {
      writeFileSync(stored[0]!, saved);
    }
  });

  it('metadata of a row stored without it is made once, then kept', async () => {
    const db = dbOf(t);
    await db.deleteFrom('dicom_metadata').where('image_id', '=', bigId).execute();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => t.request({ method: 'GET', url: `${bigPath}/metadata`, token: doc.token })),
    );
    for (const a of answers) expect(a.statusCode, a.body).toBe(200);
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM dicom_metadata WHERE image_id = ${bigId}`.execute(db);
    expect(rows[0]!.n).toBe(1);
  });

  it('deleting the image removes its parsed metadata (PHI)', async () => {
    const f = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm');
    const up = await uploadFile(t, doc.token, { name: f.name, type: f.type, data: f.data }, { caption: 'to delete' });
    expect(up.statusCode, up.body).toBe(201);
    const id = up.json().data.id as string;
    const db = dbOf(t);
    expect(
      await db.selectFrom('dicom_metadata').select('image_id').where('image_id', '=', id).executeTakeFirst(),
    ).toBeDefined();
    const del = await t.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: doc.token });
    expect(del.statusCode, del.body).toBeLessThan(300);
    expect(
      await db.selectFrom('dicom_metadata').select('image_id').where('image_id', '=', id).executeTakeFirst(),
    ).toBeUndefined();
  });
});

describe('DICOM worker memory between jobs', () => {
  it('frees what a job allocated once it has answered: the 96 MiB data set it inflated is not kept', async () => {
    const pool = createDicomPool({ log: pino({ level: 'silent' }), size: 1 });
    const engine = createDicomEngine({ pool, keys: derivedDicomKeys(Buffer.alloc(32)) });
    try {
      // Inflated in the worker: the data set and zlib's output, 96 MiB each.
      await engine.inspect(new Uint8Array(big));
      const held = async () => (await pool.memory())[0]!.arrayBuffers;
      const deadline = Date.now() + 2_000;
      while ((await held()) > 8 * MiB && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await held()).toBeLessThan(8 * MiB);
    } finally {
      await engine.close();
    }
  });
});

describe('DICOM worker memory across parse-only jobs', () => {
  it('keeps what many parse-only jobs leave behind under the scavenge budget (worker-collection.ts)', async () => {
    const pool = createDicomPool({ log: pino({ level: 'silent' }), size: 1 });
    const engine = createDicomEngine({ pool, keys: derivedDicomKeys(Buffer.alloc(32)) });
    // 0.5 MiB a job, 120 jobs: 60 MiB of data sets parsed, about four budgets.
    const f = fixture('dicom/ct_implicit_le_16bit_signed.dcm').data;
    try {
      for (let i = 0; i < 120; i++) await engine.inspect(new Uint8Array(f));
      // Read from the worker after its last job. V8's own scavenges, which the jobs' small objects
      // set off, free most of the files (0.3 MiB held here); the budget bounds them if they did not.
      const [worker] = await pool.memory();
      expect(worker!.arrayBuffers).toBeLessThan(PARSED_BYTES_PER_SCAVENGE + 4 * MiB);
    } finally {
      await engine.close();
    }
  });
});

describe('DICOM pool fairness', () => {
  it('serves another user before the first user’s third job, however many that user queued', async () => {
    const order: string[] = [];
    const pool = createDicomPool({
      log: pino({ level: 'silent' }),
      size: 2,
      growAfterMs: 0,
      onDispatch: (j) => order.push(j.owner),
    });
    const engine = createDicomEngine({ pool, keys: derivedDicomKeys(Buffer.alloc(32)) });
    let loads = 0;
    const slow = () => {
      loads++;
      return Promise.resolve(new Uint8Array(big).buffer);
    };
    try {
      // Ten of user A's: two run, eight wait (each inflates the large file: more jobs prove nothing more and cost CI time).
      const first = Array.from({ length: 10 }, (_, i) =>
        i % 2 ? engine.metadata(slow, 'user-a') : engine.frames(slow, [1], MAX_FRAMES_ANSWER_BYTES, 'user-a'),
      );
      // Queued jobs hold no copy of their file: only the two dispatched ones were read.
      await new Promise((r) => setImmediate(r));
      expect(loads).toBeLessThanOrEqual(2);
      const small = engine.inspect(fixture('dicom/ct_explicit_le_16bit_signed_small.dcm').data, 'user-b');
      await Promise.all([small, ...first]);
      expect(order.indexOf('user-b')).toBe(2);
      expect(order.filter((o) => o === 'user-a').length).toBe(10);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('refuses (429) a user’s job past their queue limit instead of growing the queue', async () => {
    const pool = createDicomPool({ log: pino({ level: 'silent' }), size: 2, growAfterMs: 0, maxQueuedPerOwner: 3 });
    // The queue is counted when a job is asked for, before its bytes are read: a small file shows
    // the refusal as well as the large one, without five parses of it.
    const small = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm').data;
    const load = () => Promise.resolve(new Uint8Array(small).buffer);
    try {
      const jobs = Array.from({ length: 5 }, () =>
        pool.run({ op: 'json', bytes: load, owner: 'user-a', timeoutMs: 60_000 }).then(
          () => 'done',
          (err: unknown) => (err instanceof DicomBusy ? 'busy' : 'failed'),
        ),
      );
      // Two run at once, three wait: the sixth is refused.
      const sixth = await pool.run({ op: 'json', bytes: load, owner: 'user-a', timeoutMs: 60_000 }).then(
        () => 'done',
        (err: unknown) => (err instanceof DicomBusy ? 'busy' : 'failed'),
      );
      expect(sixth).toBe('busy');
      expect(await Promise.all(jobs)).toEqual(['done', 'done', 'done', 'done', 'done']);
    } finally {
      await pool.close();
    }
  }, 120_000);
});

describe('deflated files', () => {
  it('parse whatever their compressed bytes begin with (dicom-parser read them as an element: 4 in 150 were refused as malformed)', async () => {
    const refused: string[] = [];
    for (let i = 0; i < 200; i++) {
      const file = await deflatedDicom({ rows: 4096, columns: 4096, frames: 20, pixelBytes: 2 ** 20 });
      try {
        expect(parseDicom(new Uint8Array(file)).transferSyntax).toBe('1.2.840.10008.1.2.1.99');
      } catch (err) {
        refused.push(String(err));
      }
    }
    expect(refused).toEqual([]);
  }, 60_000);
});

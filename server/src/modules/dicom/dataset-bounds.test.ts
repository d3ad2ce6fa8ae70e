import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import type { AppContext } from '../../app-context.ts';
import { createKeyring } from '../../crypto/envelope.ts';
import { createEncryptedStore } from '../../storage/encrypted-store.ts';
import { createStorage } from '../../storage/index.ts';
import { uploadFile } from '../images/images.test-helpers.ts';
import { DicomMessages } from './dicom-core.ts';
import { METADATA_PURPOSE, MAX_METADATA_BYTES } from './dicom-metadata.ts';
import { MAX_QIDO_ANSWER_BYTES, QidoWarnings, WadoMessages } from './dicomweb-limits.ts';
import { renderedFrames } from './wado.ts';
import { rawDicom } from './memory-test-helpers.ts';

/*
 * docs/security.md › Memory bounds, the per-data-set bound: text values kept up to 4 × their VR's
 * maximum (64 Ki characters for UC, UR, UT), a data set's DICOM JSON at most 64 MiB (413 at upload),
 * a copy stored before the bound read again from its file, and the rendered cap counted from the rows.
 */

let t: TestApp;
let doc: SignedIn;
const MiB = 2 ** 20;
const base = '/api/dicomweb';
const ctxOf = (app: TestApp) => (app.app as unknown as { ctx: AppContext }).ctx;
const file = (data: Buffer) => ({ name: 'bounds.dcm', type: 'application/dicom', data });
type Json = Record<string, { vr: string; Value?: unknown[] }>;

beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
});
afterAll(async () => t?.close());

async function upload(data: Buffer) {
  const res = await uploadFile(t, doc.token, file(data), { caption: 'bounds' });
  return res;
}
const instancePath = (u: { study: string; series: string; sop: string }) =>
  `${base}/studies/${u.study}/series/${u.series}/instances/${u.sop}`;
const get = (url: string) => t.request({ method: 'GET', url, token: doc.token });

function blobCount(): number {
  let n = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else n++;
    }
  };
  walk(join(t.dataDir, 'blobs'));
  return n;
}

describe('text values are kept up to 4 × their VR maximum', () => {
  it('stores an upload with an 8 MiB Study Description (UT), a 60 000-character LO and person name with each value capped; QIDO and WADO-RS answer the capped values', async () => {
    const uids = { study: '2.25.7001', series: '2.25.7001.1', sop: '2.25.7001.1.1' };
    const res = await upload(
      rawDicom({
        ...uids,
        extra: [
          ['00080080', 'LO', 'I'.repeat(60_000)], // Institution Name: LO, 64 → 256
          ['00081030', 'UT', 'D'.repeat(8 * MiB)], // Study Description sent as UT → 65 536
          ['00100010', 'PN', `${'N'.repeat(60_000)}^Given`], // PN, 64 per group → 256
        ],
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const meta = await get(`${instancePath(uids)}/metadata`);
    expect(meta.statusCode, meta.body).toBe(200);
    const set = (meta.json() as Json[])[0]!;
    expect((set['00080080']!.Value![0] as string).length).toBe(256);
    expect(set['00081030']!.Value![0]).toBe('D'.repeat(65_536));
    expect((set['00100010']!.Value![0] as { Alphabetic: string }).Alphabetic).toBe('N'.repeat(256));
    // The stored copy is small, whatever the file carries.
    const stored = await sql<{ bytes: number }>`
      SELECT octet_length(sealed)::int AS bytes FROM dicom_metadata WHERE image_id = ${res.json().data.id}`.execute(
      ctxOf(t).database.db,
    );
    expect(stored.rows[0]!.bytes).toBeLessThan(64 * 1024);
    const qido = await get(`${base}/studies?StudyInstanceUID=${uids.study}`);
    expect(qido.statusCode, qido.body).toBe(200);
    expect((qido.json() as Json[])[0]!['00081030']!.Value![0]).toBe('D'.repeat(65_536));
    // Matching a 200-character pattern against it is immediate (it looks at the capped value only).
    const started = performance.now();
    const matched = await get(`${base}/instances?StudyDescription=*${'D'.repeat(198)}E`);
    expect(matched.statusCode, matched.body).toBe(200);
    expect(matched.json()).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it(`refuses (413) a data set whose DICOM JSON would pass ${MAX_METADATA_BYTES / MiB} MiB, storing nothing`, async () => {
    // 1 100 values of 64 Ki characters each, deflated: a ~100 KB upload, 68 MiB of JSON once capped.
    const values = Array.from({ length: 1100 }, (_, i) => String(i % 10).repeat(65_536)).join('\\');
    const data = rawDicom({ extra: [['00180010', 'UC', values]], deflate: true });
    expect(data.length).toBeLessThan(1 * MiB);
    await ctxOf(t).services.images.idle();
    const blobs = blobCount();
    const rows = await ctxOf(t).database.db.selectFrom('images').select('id').execute();
    const res = await upload(data);
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().message).toBe(DicomMessages.metadataTooLarge(MAX_METADATA_BYTES / MiB));
    expect(blobCount()).toBe(blobs);
    expect(await ctxOf(t).database.db.selectFrom('images').select('id').execute()).toHaveLength(rows.length);
  }, 60_000);
});

describe('QIDO answers', () => {
  it(`end the page early, with the "additional results" warning, before passing ${MAX_QIDO_ANSWER_BYTES / MiB} MiB`, async () => {
    // Two instances of ~40 MiB of JSON each (640 values of 64 Ki characters), each a ~60 KB upload.
    const study = '2.25.7004';
    const values = Array.from({ length: 640 }, (_, i) => String(i % 10).repeat(65_536)).join('\\');
    for (const n of [1, 2]) {
      const data = rawDicom({
        study,
        series: `${study}.1`,
        sop: `${study}.1.${n}`,
        extra: [['00180010', 'UC', values]],
        deflate: true,
      });
      const res = await upload(data);
      expect(res.statusCode, res.body).toBe(201);
    }
    const all = await get(`${base}/instances?StudyInstanceUID=${study}&includefield=all`);
    expect(all.statusCode).toBe(200);
    expect(all.json()).toHaveLength(1);
    expect(all.headers.warning).toBe(QidoWarnings.more);
    expect(all.rawPayload.length).toBeLessThanOrEqual(MAX_QIDO_ANSWER_BYTES);
    // Without the large attribute both fit, and nothing says more follow.
    const plain = await get(`${base}/instances?StudyInstanceUID=${study}`);
    expect(plain.json()).toHaveLength(2);
    expect(plain.headers.warning).toBeUndefined();
  }, 60_000);
});

describe('a stored copy over the bound (kept before it was checked)', () => {
  it('is read again from the file on every route (never a 500), and replaced by the capped copy', async () => {
    const uids = { study: '2.25.7002', series: '2.25.7002.1', sop: '2.25.7002.1.1' };
    const res = await upload(rawDicom({ ...uids, extra: [['00081030', 'LO', 'Stored before the bound']] }));
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data.id as string;
    const db = ctxOf(t).database.db;
    const row = await db
      .selectFrom('images')
      .select(['wrapped_key', 'key_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    // What an upload before the bound could store: a JSON of 65 MiB (an 8 MiB value in a deflated upload did).
    const huge = gzipSync(
      Buffer.from(JSON.stringify({ json: { '00081030': { vr: 'UT', Value: ['x'.repeat(65 * MiB)] } }, phi: {} })),
      { level: 1 },
    );
    const store = createEncryptedStore(createStorage(ctxOf(t).config), createKeyring(ctxOf(t).config.masterKey));
    const sealed = store.sealValue({ wrappedKey: row.wrapped_key, keyId: row.key_id }, METADATA_PURPOSE, id, huge);
    await db.updateTable('dicom_metadata').set({ sealed }).where('image_id', '=', id).execute();

    const wado = await get(`${instancePath(uids)}/metadata`);
    expect(wado.statusCode, wado.body).toBe(200);
    expect((wado.json() as Json[])[0]!['00081030']!.Value).toEqual(['Stored before the bound']);
    // Replaced: the next reads open the capped copy.
    const stored = await sql<{ bytes: number }>`
      SELECT octet_length(sealed)::int AS bytes FROM dicom_metadata WHERE image_id = ${id}`.execute(db);
    expect(stored.rows[0]!.bytes).toBeLessThan(64 * 1024);
    await db.updateTable('dicom_metadata').set({ sealed }).where('image_id', '=', id).execute();
    const named = await get(`${base}/instances?PatientName=raw*`);
    expect(named.statusCode, named.body).toBe(200);
    expect((named.json() as Json[]).map((r) => r['00080018']!.Value![0])).toContain(uids.sop);
    await db.updateTable('dicom_metadata').set({ sealed }).where('image_id', '=', id).execute();
    const phi = await get(`/api/images/${id}/dicom/metadata`);
    expect(phi.statusCode, phi.body).toBe(200);
    expect(phi.json().data.phi.patientName).toBe('Raw^Bounds');
    await db.updateTable('dicom_metadata').set({ sealed }).where('image_id', '=', id).execute();
    const study = await get(`${base}/studies/${uids.study}/metadata`);
    expect(study.statusCode, study.body).toBe(200);
  }, 60_000);
});

describe('WADO-RS rendered: the frames are added up before any job is made', () => {
  it('refuses 100 instances declaring 100 000 frames each (10^7 images) at once, building no list of frames', () => {
    const rows = Array.from({ length: 100 }, () => ({ dicom_frames: 100_000 }));
    const heap = process.memoryUsage().heapUsed;
    const started = performance.now();
    expect(() => renderedFrames(rows)).toThrow(WadoMessages.tooManyRendered);
    // Building the list first took 4.8 s and 626 MiB here (review 15 H2).
    expect(performance.now() - started).toBeLessThan(100);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(64 * MiB);
    expect(renderedFrames([{ dicom_frames: 600 }, { dicom_frames: 400 }])).toHaveLength(1000);
    expect(() => renderedFrames([{ dicom_frames: 600 }, { dicom_frames: 401 }])).toThrow(WadoMessages.tooManyRendered);
  });

  it('answers 413 for a series whose instances declare 1 200 frames in all, rendering nothing', async () => {
    const series = { study: '2.25.7003', series: '2.25.7003.1' };
    for (const n of [1, 2]) {
      const res = await upload(rawDicom({ ...series, sop: `2.25.7003.1.${n}`, rows: 1, columns: 1, frames: 600 }));
      expect(res.statusCode, res.body).toBe(201);
    }
    const res = await get(`${base}/studies/${series.study}/series/${series.series}/rendered`);
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().message).toBe(WadoMessages.tooManyRendered);
    const audited = await ctxOf(t)
      .database.db.selectFrom('audit_logs')
      .select('id')
      .where('user_id', '=', doc.user.id)
      .where('action_type', '=', 'dicomweb.rendered')
      .execute();
    expect(audited).toHaveLength(0);
  });
});

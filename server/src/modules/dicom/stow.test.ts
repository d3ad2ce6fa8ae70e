import { StowFailureReason } from '@medshare/contracts';
import { readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { bytesOf, fixture } from '../images/images.test-helpers.ts';
import { type GeneratedStudy, generateStudy } from '../studies/studies.test-helpers.ts';
import { NO_DCMTK, hasDcmtk } from './dicom-test-helpers.ts';

/**
 * STOW-RS (PS3.18 §10.5) against the real app: multipart/related bodies built here part by part,
 * instances from a study generated with dcmtk's dcmodify. Every part goes through the upload
 * pipeline, so what is stored is checked as rows and blobs, and read back through WADO-RS.
 */
// CI installs dcmtk (the study is generated with dcmodify): there the test must run, not skip.
if (process.env.CI && !hasDcmtk) throw new Error(NO_DCMTK);

let t: TestApp;
let doc: SignedIn;
let patient: SignedIn;
const base = '/api/dicomweb';
const db = () => t.app.ctx.database.db;
type Json = Record<string, { vr: string; Value?: Array<Record<string, { Value?: unknown[] }> | string | number> }>;

interface Part {
  data: Buffer;
  /** The part's Content-Type; null: none. */
  type?: string | null;
}

function related(parts: Part[], boundary = 'stow-boundary-7d1f') {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const type = p.type === null ? '' : `Content-Type: ${p.type ?? 'application/dicom'}\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\n${type}\r\n`), p.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    contentType: `multipart/related; type="application/dicom"; boundary=${boundary}`,
  };
}

const stow = (
  body: { payload: Buffer; contentType: string },
  opts: { study?: string; patientId?: string | null; token?: string; headers?: Record<string, string> } = {},
) =>
  t.request({
    method: 'POST',
    url: `${base}/studies${opts.study ? `/${opts.study}` : ''}${
      opts.patientId === null ? '' : `?patientId=${opts.patientId ?? patient.user.id}`
    }`,
    payload: body.payload,
    headers: { 'content-type': body.contentType, ...(opts.headers ?? {}) },
    token: opts.token ?? doc.token,
  });

const instancesOf = (study: GeneratedStudy) => study.series.flatMap((s) => s.instances);
const sequence = (json: Json, tag: string) => (json[tag]?.Value ?? []) as Array<Record<string, { Value?: unknown[] }>>;
const value = (item: Record<string, { Value?: unknown[] }>, tag: string) => item[tag]?.Value?.[0];

async function rowsOf(sops: string[]) {
  if (!sops.length) return [];
  return db()
    .selectFrom('images')
    .select(['id', 'patient_id', 'dicom_sop_instance_uid', 'caption'])
    .where('dicom_sop_instance_uid', 'in', sops)
    .where('uploader_id', '=', doc.user.id)
    .where('deleted_at', 'is', null)
    .execute();
}

/** Every blob belongs to a live row (an image or its thumbnail) and no partial write is left. */
async function expectNoStrayBlobs() {
  await t.app.ctx.services.images.idle();
  const root = join(t.dataDir, 'blobs');
  const names: string[] = [];
  for (const dir of readdirSync(root)) {
    const path = join(root, dir);
    if (!statSync(path).isDirectory()) continue;
    if (dir === '.tmp') {
      expect(readdirSync(path), 'partial writes left in .tmp').toEqual([]);
      continue;
    }
    names.push(...readdirSync(path));
  }
  const ids = new Set(
    (await db().selectFrom('images').select('storage_key').where('deleted_at', 'is', null).execute()).map(
      (r) => r.storage_key,
    ),
  );
  const stray = names.filter((n) => !ids.has(n.replace(/-thumb-[0-9a-f]{8}$/, '')));
  expect(stray, 'blobs without a live row').toEqual([]);
}

async function setSetting(name: string, value: string) {
  await db().updateTable('app_settings').set({ value }).where('name', '=', name).execute();
  t.app.ctx.services.settings.invalidate();
}

beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient');
});
afterAll(async () => t?.close());
beforeEach(async () => {
  await setSetting('max_upload_mb', '10');
  await setSetting('max_import_files', '2000');
  await setSetting('max_import_mb', '2048');
});

describe.skipIf(!hasDcmtk)(`STOW-RS (${hasDcmtk ? 'dcmtk found' : NO_DCMTK})`, () => {
  it('stores a multi-series study sent in one body: 200, every instance referenced with its RetrieveURL, byte-identical through WADO-RS, for the patient named', async () => {
    const study = generateStudy([2, 3]);
    const instances = instancesOf(study);
    const started = performance.now();
    const res = await stow(related(instances.map((i) => ({ data: i.file.data }))));
    const seconds = (performance.now() - started) / 1000;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/dicom\+json/);
    const json = res.json() as Json;
    expect(json['00081190']?.Value).toEqual([`http://medshare.test/api/dicomweb/studies/${study.studyUid}`]);
    expect(json['00081198']).toBeUndefined();
    const referenced = sequence(json, '00081199');
    expect(referenced).toHaveLength(5);
    for (const item of referenced) {
      expect(value(item, '00081150')).toBe('1.2.840.10008.5.1.4.1.1.2');
      const sop = value(item, '00081155') as string;
      const instance = instances.find((i) => i.sop === sop)!;
      expect(instance, sop).toBeDefined();
      const series = study.series.find((s) => s.instances.includes(instance))!;
      const url = String(value(item, '00081190'));
      expect(url).toBe(
        `http://medshare.test/api/dicomweb/studies/${study.studyUid}/series/${series.uid}/instances/${sop}`,
      );
      const back = await t.request({
        method: 'GET',
        url: url.replace('http://medshare.test', ''),
        token: doc.token,
        headers: { accept: 'multipart/related; type="application/dicom"; transfer-syntax=*' },
      });
      expect(back.statusCode).toBe(200);
      expect(bytesOf(back).includes(instance.file.data), `instance ${sop} byte-identical`).toBe(true);
    }
    const rows = await rowsOf(instances.map((i) => i.sop));
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((r) => r.patient_id))).toEqual(new Set([patient.user.id]));
    // The caption names the modality only: the Study Description is sealed with the file.
    expect(new Set(rows.map((r) => r.caption))).toEqual(new Set(['CT study']));
    const audits = await db()
      .selectFrom('audit_logs')
      .select('record_id')
      .where('action_type', '=', 'image.upload')
      .where('status', '=', 'success')
      .where(
        'record_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    expect(audits).toHaveLength(5);
    await expectNoStrayBlobs();
    console.warn(
      `STOW-RS of ${instances.length} instances (${related(instances.map((i) => ({ data: i.file.data }))).payload.length} bytes): ${seconds.toFixed(2)} s`,
    );
  });

  it('the same study again is referenced as stored and nothing is stored twice (the duplicate rule)', async () => {
    const study = generateStudy([3]);
    const body = related(instancesOf(study).map((i) => ({ data: i.file.data })));
    expect((await stow(body)).statusCode).toBe(200);
    const before = await rowsOf(instancesOf(study).map((i) => i.sop));
    const again = await stow(body);
    expect(again.statusCode, again.body).toBe(200);
    const referenced = sequence(again.json(), '00081199');
    expect(referenced).toHaveLength(3);
    const after = await rowsOf(instancesOf(study).map((i) => i.sop));
    expect(after.map((r) => r.id).sort()).toEqual(before.map((r) => r.id).sort());
    await expectNoStrayBlobs();
  });

  it('POST /studies/{study}: an instance of another study fails with 0xA901 and is not stored; the rest are (202)', async () => {
    const study = generateStudy([2]);
    const stranger = generateStudy([1]);
    const intruder = stranger.series[0]!.instances[0]!;
    const res = await stow(related([...instancesOf(study), intruder].map((i) => ({ data: i.file.data }))), {
      study: study.studyUid,
    });
    expect(res.statusCode, res.body).toBe(202);
    const json = res.json() as Json;
    const failed = sequence(json, '00081198');
    expect(failed).toHaveLength(1);
    expect(value(failed[0]!, '00081155')).toBe(intruder.sop);
    expect(value(failed[0]!, '00081197')).toBe(StowFailureReason.studyMismatch);
    expect(sequence(json, '00081199')).toHaveLength(2);
    expect(await rowsOf([intruder.sop])).toHaveLength(0);
    await expectNoStrayBlobs();
  });

  it('POST /studies/{study}: an instance whose head names the study but whose full parse names another (a second Study Instance UID after the pixel data) fails with 0xA901 before its row', async () => {
    const study = generateStudy([1]);
    const instance = instancesOf(study)[0]!;
    const other = generateStudy([1]).studyUid;
    // (0020,000D) again, after (7FE0,0010): the head stops at the pixel data and reads the study of the
    // URL; the worker's full parse reads on and keeps the last value (docs/security.md › DICOM networking: STOW-RS and DIMSE).
    const uid = Buffer.from(other.length % 2 ? `${other}\0` : other, 'latin1');
    const element = Buffer.alloc(8);
    element.writeUInt16LE(0x0020, 0);
    element.writeUInt16LE(0x000d, 2);
    element.write('UI', 4, 'latin1');
    element.writeUInt16LE(uid.length, 6);
    const twoFaced = Buffer.concat([instance.file.data, element, uid]);
    const res = await stow(related([{ data: twoFaced }]), { study: study.studyUid });
    expect(res.statusCode, res.body).toBe(409);
    const failed = sequence(res.json(), '00081198');
    expect(value(failed[0]!, '00081155')).toBe(instance.sop);
    expect(value(failed[0]!, '00081197')).toBe(StowFailureReason.studyMismatch);
    expect(await rowsOf([instance.sop])).toHaveLength(0);
    await expectNoStrayBlobs();
    const refusal = await db()
      .selectFrom('audit_logs')
      .select('reason')
      .where('action_type', '=', 'image.upload')
      .where('status', '=', 'failure')
      .where('user_id', '=', doc.user.id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    expect(refusal?.reason).toBe('study_mismatch');
    // The control: without a study in the URL it is stored, and the stored columns name the other study.
    const plain = await stow(related([{ data: twoFaced }]));
    expect(plain.statusCode, plain.body).toBe(200);
    const row = await db()
      .selectFrom('images')
      .select('dicom_study_uid')
      .where('dicom_sop_instance_uid', '=', instance.sop)
      .where('uploader_id', '=', doc.user.id)
      .executeTakeFirstOrThrow();
    expect(row.dicom_study_uid).toBe(other);
  });

  it('answers 409 when no instance could be stored, each with its reason', async () => {
    const study = generateStudy([1]);
    const res = await stow(related([{ data: instancesOf(study)[0]!.file.data }]), {
      study: generateStudy([1]).studyUid,
    });
    expect(res.statusCode, res.body).toBe(409);
    expect(value(sequence(res.json(), '00081198')[0]!, '00081197')).toBe(StowFailureReason.studyMismatch);
    expect(res.json()['00081199']).toBeUndefined();
  });

  it('a part that is not DICOM, and DICOM declared as a PNG: each fails with 0xC000, the others are stored', async () => {
    const study = generateStudy([2]);
    const [a, b] = instancesOf(study);
    const png = fixture('other/photo_chelsea_cat.png');
    const res = await stow(
      related([{ data: a!.file.data }, { data: png.data }, { data: b!.file.data, type: 'image/png' }]),
    );
    expect(res.statusCode, res.body).toBe(202);
    const failed = sequence(res.json(), '00081198');
    expect(failed.map((f) => value(f, '00081197'))).toEqual([
      StowFailureReason.cannotUnderstand,
      StowFailureReason.cannotUnderstand,
    ]);
    // The DICOM declared as PNG is still named by its UIDs; the PNG has none.
    expect(value(failed[1]!, '00081155')).toBe(b!.sop);
    expect(failed[0]!['00081155']).toBeUndefined();
    expect(await rowsOf([a!.sop])).toHaveLength(1);
    expect(await rowsOf([b!.sop])).toHaveLength(0);
    await expectNoStrayBlobs();
  });

  it('an instance over max_upload_mb fails with 0xA700 (out of resources) while the next is stored', async () => {
    await setSetting('max_upload_mb', '1');
    const study = generateStudy([2]);
    const [big, small] = instancesOf(study);
    const huge = Buffer.concat([big!.file.data, Buffer.alloc(1024 * 1024 + 10)]);
    const res = await stow(related([{ data: huge }, { data: small!.file.data }]));
    expect(res.statusCode, res.body).toBe(202);
    const failed = sequence(res.json(), '00081198');
    expect(value(failed[0]!, '00081155')).toBe(big!.sop);
    expect(value(failed[0]!, '00081197')).toBe(StowFailureReason.outOfResources);
    expect(await rowsOf([big!.sop])).toHaveLength(0);
    expect(await rowsOf([small!.sop])).toHaveLength(1);
    await expectNoStrayBlobs();
  });

  it('parts past max_import_files are read but not stored: counted in one 0xA700 item without UIDs, and a Warning says how many', async () => {
    await setSetting('max_import_files', '2');
    const study = generateStudy([4]);
    const instances = instancesOf(study);
    const res = await stow(related(instances.map((i) => ({ data: i.file.data }))));
    expect(res.statusCode, res.body).toBe(202);
    expect(String(res.headers.warning)).toContain(
      'At most 2 instances per request (setting max_import_files): 2 more parts were read and not stored.',
    );
    expect(sequence(res.json(), '00081199')).toHaveLength(2);
    // Nothing is kept of a part past the limit, not even its UIDs (security › Memory bounds).
    expect(sequence(res.json(), '00081198')).toEqual([
      { '00081197': { vr: 'US', Value: [StowFailureReason.outOfResources] } },
    ]);
    expect(await rowsOf(instances.slice(2).map((i) => i.sop))).toHaveLength(0);
    await expectNoStrayBlobs();
  });

  it('past twice max_import_files reading stops: 413 when nothing was stored, 202 with what was stored otherwise', async () => {
    await setSetting('max_import_files', '1');
    const study = generateStudy([4]);
    const instances = instancesOf(study);
    const stored = await stow(related(instances.map((i) => ({ data: i.file.data }))));
    expect(stored.statusCode, stored.body).toBe(202);
    expect(String(stored.headers.warning)).toContain(
      '1 more parts were read and not stored. Reading stopped after 2 parts',
    );
    expect(sequence(stored.json(), '00081199')).toHaveLength(1);
    expect(await rowsOf(instances.map((i) => i.sop))).toHaveLength(1);
    const png = fixture('other/photo_chelsea_cat.png');
    const none = await stow(related([{ data: png.data }, { data: png.data }, { data: png.data }]));
    expect(none.statusCode, none.body).toBe(413);
    expect(none.json().message).toContain('Reading stopped after 2 parts');
    await expectNoStrayBlobs();
  });

  it('a body over max_import_mb (by Content-Length) is refused with 413 before it is read', async () => {
    await setSetting('max_import_mb', '1');
    const study = generateStudy([1]);
    const body = related([{ data: Buffer.concat([instancesOf(study)[0]!.file.data, Buffer.alloc(1024 * 1024)]) }]);
    const res = await stow(body);
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json().message).toContain('max_import_mb');
    expect(await rowsOf([instancesOf(study)[0]!.sop])).toHaveLength(0);
  });

  it('a body without Content-Length stops being read at max_import_mb: the instances before the limit are stored, the one it cuts is not', async () => {
    await setSetting('max_import_mb', '1');
    const study = generateStudy([2]);
    const [first, second] = instancesOf(study);
    const body = related([
      { data: first!.file.data },
      { data: Buffer.concat([second!.file.data, Buffer.alloc(1024 * 1024)]) },
    ]);
    const res = await t.request({
      method: 'POST',
      url: `${base}/studies?patientId=${patient.user.id}`,
      // A stream: sent without Content-Length, so the limit is met while reading.
      payload: Readable.from(
        Array.from({ length: Math.ceil(body.payload.length / 16_384) }, (_, i) =>
          body.payload.subarray(i * 16_384, (i + 1) * 16_384),
        ),
      ),
      headers: { 'content-type': body.contentType },
      token: doc.token,
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(String(res.headers.warning)).toContain('max_import_mb');
    // The part the limit cut is listed when the loop had reached it (the parser may be ahead of it).
    for (const item of sequence(res.json(), '00081198')) {
      expect(value(item, '00081155')).toBe(second!.sop);
      expect(value(item, '00081197')).toBe(StowFailureReason.outOfResources);
    }
    expect(sequence(res.json(), '00081199')).toHaveLength(1);
    expect(await rowsOf([first!.sop])).toHaveLength(1);
    expect(await rowsOf([second!.sop])).toHaveLength(0);
    await expectNoStrayBlobs();
  });

  it('names the patient by query or by the X-MedShare-Patient header; none, an unknown one or a provider is 400 before the body is read', async () => {
    const study = generateStudy([1]);
    const body = related([{ data: instancesOf(study)[0]!.file.data }]);
    const none = await stow(body, { patientId: null });
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toContain('X-MedShare-Patient');
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000', doc.user.id]) {
      const res = await stow(body, { patientId: id });
      expect(res.statusCode, id).toBe(400);
      expect(res.json().errors[0].field).toBe('patientId');
    }
    expect(await rowsOf([instancesOf(study)[0]!.sop])).toHaveLength(0);
    const byHeader = await stow(body, { patientId: null, headers: { 'x-medshare-patient': patient.user.id } });
    expect(byHeader.statusCode, byHeader.body).toBe(200);
    const rows = await rowsOf([instancesOf(study)[0]!.sop]);
    expect(rows.map((r) => r.patient_id)).toEqual([patient.user.id]);
  });

  it('refuses other media types with 415 and a clear message, and bodies it cannot read with 400, storing nothing', async () => {
    const study = generateStudy([1]);
    const good = related([{ data: instancesOf(study)[0]!.file.data }]);
    const cases: Array<[string, string, number, string]> = [
      ['application/json', '{"a":1}', 415, 'multipart/related'],
      ['multipart/form-data; boundary=x', '--x--\r\n', 415, 'multipart/related'],
      ['multipart/related; type="application/dicom+json"; boundary=x', '--x--\r\n', 415, 'application/dicom+json'],
      ['multipart/related; type="application/dicom"', '--x--\r\n', 400, 'boundary'],
      [
        'multipart/related; type="application/dicom"; boundary=other',
        good.payload.toString('latin1'),
        400,
        'closing boundary',
      ],
      ['multipart/related; type=', good.payload.toString('latin1'), 400, 'Content-Type'],
    ];
    for (const [type, body, status, words] of cases) {
      const res = await stow({ payload: Buffer.from(body, 'latin1'), contentType: type });
      expect(res.statusCode, `${type}: ${res.body}`).toBe(status);
      expect(res.json().message, type).toContain(words);
    }
    // The closing boundary missing: the part is cut and nothing of it is stored.
    const cut = good.payload.subarray(0, good.payload.length - 40);
    const res = await stow({ payload: cut, contentType: good.contentType });
    expect(res.statusCode, res.body).toBe(400);
    expect(await rowsOf([instancesOf(study)[0]!.sop])).toHaveLength(0);
    await expectNoStrayBlobs();
  });

  it('only providers and admins may store (image:upload); a patient gets 403', async () => {
    const study = generateStudy([1]);
    const res = await stow(related([{ data: instancesOf(study)[0]!.file.data }]), { token: patient.token });
    expect(res.statusCode).toBe(403);
  });

  it('a body cut mid-part by the client (raw socket) keeps the instances before it, stores nothing of the cut one, and serves on', async () => {
    const study = generateStudy([3]);
    const instances = instancesOf(study);
    const body = related(instances.map((i) => ({ data: i.file.data })));
    // Up to the middle of the third instance's bytes.
    const third = body.payload.indexOf(instances[2]!.file.data);
    const sent = body.payload.subarray(0, third + Math.floor(instances[2]!.file.data.length / 2));
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST ${base}/studies?patientId=${patient.user.id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${doc.token}\r\n` +
            `Content-Type: ${body.contentType}\r\nContent-Length: ${body.payload.length}\r\n\r\n`,
        );
        socket.write(sent, () => setTimeout(() => socket.destroy(), 300));
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    // The server reads the cut body to its end before the rows can be counted.
    const deadline = Date.now() + 10_000;
    while ((await rowsOf(instances.slice(0, 2).map((i) => i.sop))).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    expect(await rowsOf(instances.slice(0, 2).map((i) => i.sop))).toHaveLength(2);
    expect(await rowsOf([instances[2]!.sop])).toHaveLength(0);
    await expectNoStrayBlobs();
    const failures = await db()
      .selectFrom('audit_logs')
      .select(['reason', 'status'])
      .where('action_type', '=', 'image.upload')
      .where('status', '=', 'failure')
      .where('user_id', '=', doc.user.id)
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    expect(failures[0]?.reason).toBe('bad_request');
    const health = await fetch(`${address}/api/health`);
    expect(health.status).toBe(200);
  });
});

import dcmjs from 'dcmjs';
import dicomParser from 'dicom-parser';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { watchFreedSizes } from '../../storage/free-buffer.test-helpers.ts';
import { bytesOf, fixture, uploadFile } from '../images/images.test-helpers.ts';
import { NO_DCMTK, hasDcmtk } from './dicom-test-helpers.ts';
import { QidoWarnings } from './dicomweb-limits.ts';

/**
 * DICOMweb read side (WADO-RS study/series retrieve, metadata, rendered, frames; transfer-syntax
 * negotiation; QIDO includefield, paging, warnings) against the real app. One study is built from
 * the fixtures: the 2-frame JPEG Lossless SV1 CT as it is (series J), and two copies of the small
 * explicit VR LE CT moved into the same study by dcmjs (series X, new SOP instance UIDs).
 */
let t: TestApp;
let doc: SignedIn;
let other: SignedIn;
let patient: SignedIn;
const base = '/api/dicomweb';
const dcm = (name: string) => fixture(`dicom/${name}`);
const tmp = mkdtempSync(join(tmpdir(), 'dicomweb-'));

const get = (url: string, token?: string, accept?: string) =>
  t.request({ method: 'GET', url, token, headers: accept === undefined ? {} : { accept } });

/** The fixture with new study/series/SOP instance UIDs (and modality), re-encoded by dcmjs (explicit VR LE, native pixels). */
function moved(name: string, uids: { study: string; series: string; sop: string }, modality?: string): Buffer {
  const data = dcm(name).data;
  const message = dcmjs.data.DicomMessage.readFile(
    data.buffer.slice(data.byteOffset, data.byteOffset + data.length) as ArrayBuffer,
  );
  message.dict['0020000D'] = { vr: 'UI', Value: [uids.study] };
  message.dict['0020000E'] = { vr: 'UI', Value: [uids.series] };
  message.dict['00080018'] = { vr: 'UI', Value: [uids.sop] };
  message.meta['00020003'] = { vr: 'UI', Value: [uids.sop] };
  if (modality) message.dict['00080060'] = { vr: 'CS', Value: [modality] };
  return Buffer.from(message.write());
}

/** Parts of a multipart/related body. */
function multipartParts(res: { headers: Record<string, unknown>; rawPayload: Buffer }) {
  const type = String(res.headers['content-type']);
  const boundary = /boundary=([^;\s]+)/.exec(type)![1]!;
  const body = bytesOf(res);
  const parts: Array<{ headers: string; data: Buffer }> = [];
  const sep = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(sep);
  while (pos >= 0) {
    const start = pos + sep.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', start);
    const headers = body.subarray(start + 2, headerEnd).toString('latin1');
    const next = body.indexOf(sep, headerEnd);
    parts.push({ headers, data: body.subarray(headerEnd + 4, next - 2) });
    pos = next;
  }
  return parts;
}

const parse = (bytes: Buffer) => dicomParser.parseDicom(new Uint8Array(bytes));
const uidsOf = (bytes: Buffer) => {
  const ds = parse(bytes);
  return { study: ds.string('x0020000d')!, series: ds.string('x0020000e')!, sop: ds.string('x00080018')! };
};
const pixelsOf = (bytes: Buffer) => {
  const ds = parse(bytes);
  const el = ds.elements.x7fe00010!;
  return Buffer.from(ds.byteArray.subarray(el.dataOffset, el.dataOffset + el.length));
};

/** Shares an image with `to` and verifies it as the recipient. */
async function shareTo(imageId: string, to: SignedIn) {
  const res = await t.request({
    method: 'POST',
    url: '/api/sharing/request',
    token: doc.token,
    payload: { imagemetadataId: imageId, createdfor: to.user.id },
  });
  expect(res.statusCode, res.body).toBe(201);
  const code = codeIn(await t.smtp.lastTo(to.user.email));
  const v = await t.request({
    method: 'POST',
    url: '/api/sharing/verify',
    token: to.token,
    payload: { sharingRequestId: res.json().data.id, verificationCode: code },
  });
  expect(v.statusCode, v.body).toBe(200);
}

const uploaded: Record<string, { id: string; bytes: Buffer; study: string; series: string; sop: string }> = {};
async function put(key: string, name: string, bytes: Buffer = dcm(name).data) {
  const res = await uploadFile(t, doc.token, { ...dcm(name), data: bytes }, { caption: key });
  expect(res.statusCode, res.body).toBe(201);
  uploaded[key] = { id: res.json().data.id, bytes, ...uidsOf(bytes) };
  return uploaded[key]!;
}

let study: string;
let seriesJ: string;
let seriesX: string;
beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
  other = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient');
  const j = await put('jpeg', 'ct_multiframe_jpeg_lossless_sv1.dcm');
  study = j.study;
  seriesJ = j.series;
  seriesX = `${study}.77`;
  await put(
    'x1',
    'ct_explicit_le_16bit_signed_small.dcm',
    moved('ct_explicit_le_16bit_signed_small.dcm', { study, series: seriesX, sop: `${study}.77.1` }),
  );
  await put(
    'x2',
    'ct_explicit_le_16bit_signed_small.dcm',
    moved('ct_explicit_le_16bit_signed_small.dcm', { study, series: seriesX, sop: `${study}.77.2` }),
  );
  await put('implicit', 'ct_implicit_le_16bit_signed.dcm');
  await put('lossy', 'us_multiframe_ybr422_jpeg_baseline.dcm');
});
afterAll(async () => {
  await t?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const instanceUrl = (key: string) => {
  const u = uploaded[key]!;
  return `${base}/studies/${u.study}/series/${u.series}/instances/${u.sop}`;
};
const AS_STORED = 'multipart/related; type="application/dicom"; transfer-syntax=*';

describe('WADO-RS study and series retrieve', () => {
  it('answers a study as multipart/related of every visible instance, each byte-identical to its upload', async () => {
    const res = await get(`${base}/studies/${study}`, doc.token, AS_STORED);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^multipart\/related; type="application\/dicom"; boundary=/);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const parts = multipartParts(res);
    expect(parts).toHaveLength(3);
    const expected = [uploaded.jpeg!, uploaded.x1!, uploaded.x2!].map((u) => u.bytes);
    for (const bytes of expected) expect(parts.some((p) => p.data.equals(bytes))).toBe(true);
    expect(parts.find((p) => p.data.equals(uploaded.jpeg!.bytes))!.headers).toMatch(
      /Content-Type: application\/dicom; transfer-syntax=1.2.840.10008.1.2.4.70/,
    );
    // Content-Length is known for stored objects sent as stored.
    expect(Number(res.headers['content-length'])).toBe(bytesOf(res).length);
  });

  it('answers a series with its own instances only', async () => {
    const parts = multipartParts(await get(`${base}/studies/${study}/series/${seriesX}`, doc.token, AS_STORED));
    expect(parts.map((p) => uidsOf(p.data).sop).sort()).toEqual([uploaded.x1!.sop, uploaded.x2!.sop].sort());
  });

  it('audits each instance a study retrieve serves, before the answer', async () => {
    const before = await auditRows(doc, 'dicomweb.instance');
    await get(`${base}/studies/${study}`, doc.token, AS_STORED);
    const rows = (await auditRows(doc, 'dicomweb.instance')).slice(before.length);
    expect(rows.map((r) => r.record_id).sort()).toEqual([uploaded.jpeg!.id, uploaded.x1!.id, uploaded.x2!.id].sort());
    expect(rows.every((r) => r.reason === 'level=study syntax=as-stored')).toBe(true);
  });

  it('shows another provider nothing (404), and a patient only the instances shared with them once verified', async () => {
    for (const url of [
      `${base}/studies/${study}`,
      `${base}/studies/${study}/series/${seriesX}`,
      `${base}/studies/${study}/metadata`,
      `${base}/studies/${study}/series/${seriesX}/metadata`,
      `${base}/studies/${study}/rendered`,
      `${base}/studies/${study}/series/${seriesX}/rendered`,
    ]) {
      expect((await get(url, other.token)).statusCode, url).toBe(404);
      expect((await get(url, patient.token)).statusCode, url).toBe(404);
      expect((await get(url)).statusCode, url).toBe(401);
    }
    await shareTo(uploaded.x1!.id, patient);
    const parts = multipartParts(await get(`${base}/studies/${study}`, patient.token, AS_STORED));
    expect(parts.map((p) => uidsOf(p.data).sop)).toEqual([uploaded.x1!.sop]);
    const meta = (await get(`${base}/studies/${study}/metadata`, patient.token)).json();
    expect(meta.map((m: Record<string, { Value: string[] }>) => m['00080018']!.Value[0])).toEqual([uploaded.x1!.sop]);
    expect((await get(`${base}/studies/${study}/series/${seriesJ}`, patient.token)).statusCode).toBe(404);
    expect((await get(`${base}/studies/${study}`, other.token)).statusCode).toBe(404);
  });

  it('answers 404 for a study or series nobody has and for UIDs that are not UIDs', async () => {
    expect((await get(`${base}/studies/1.2.3.4.5`, doc.token)).statusCode).toBe(404);
    expect((await get(`${base}/studies/${study}/series/1.2.3`, doc.token)).statusCode).toBe(404);
    expect((await get(`${base}/studies/abc'--`, doc.token)).statusCode).toBe(404);
  });
});

describe('a forged instance in a study retrieve', () => {
  it('is never sent: the answer breaks off at it; the others still answer whole', async () => {
    const forgedStudy = '1.2.826.0.1.3680043.10.1341.4';
    const series = `${forgedStudy}.1`;
    const [good, bad] = [1, 2].map((n) =>
      moved('ct_explicit_le_16bit_signed_small.dcm', { study: forgedStudy, series, sop: `${series}.${n}` }),
    );
    // A provider of its own, so that the other tests' study lists stay as they are.
    const owner = await newUser(t, 'healthProvider');
    const upload = async (data: Buffer) => {
      const res = await uploadFile(t, owner.token, { ...dcm('ct_explicit_le_16bit_signed_small.dcm'), data });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.id as string;
    };
    await upload(good!);
    const forged = await upload(bad!);
    const blobPath = join(t.dataDir, 'blobs', forged.slice(0, 2), forged);
    const sealed = readFileSync(blobPath);
    // One bit of the last chunk: the chunks before it pass their own checks.
    sealed[sealed.length - 100] = sealed[sealed.length - 100]! ^ 1;
    writeFileSync(blobPath, sealed);
    // The forged instance is checked whole before any byte of it is written: the answer breaks off there.
    await expect(get(`${base}/studies/${forgedStudy}`, owner.token, AS_STORED)).rejects.toThrow(
      /destroyed before completion/,
    );
    const whole = await get(
      `${base}/studies/${forgedStudy}/series/${series}/instances/${series}.1`,
      owner.token,
      AS_STORED,
    );
    expect(whole.statusCode).toBe(200);
    expect(multipartParts(whole).map((p) => p.data.equals(good!))).toEqual([true]);
  });
});

describe('a study of 205 instances', () => {
  const big = '1.2.826.0.1.3680043.99.7';
  let owner: SignedIn;
  beforeAll(async () => {
    // Its own provider, so that the searches below see only the small study.
    owner = await newUser(t, 'healthProvider');
    // More than one chunk of metadata (200) and many files to open one after another.
    for (let i = 0; i < 205; i++) {
      const bytes = moved('ct_explicit_le_16bit_signed_small.dcm', {
        study: big,
        series: `${big}.${i % 2}`,
        sop: `${big}.${i % 2}.${i}`,
      });
      const file = { ...dcm('ct_explicit_le_16bit_signed_small.dcm'), data: bytes };
      const res = await uploadFile(t, owner.token, file, { caption: 'big' });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 300_000);

  it('answers its metadata (written a chunk at a time) and its retrieve with every instance once', async () => {
    const meta = await get(`${base}/studies/${big}/metadata`, owner.token);
    expect(meta.statusCode).toBe(200);
    const sops = (meta.json() as Array<Record<string, { Value: string[] }>>).map((m) => m['00080018']!.Value[0]);
    expect(sops).toHaveLength(205);
    expect(new Set(sops).size).toBe(205);
    const parts = multipartParts(await get(`${base}/studies/${big}`, owner.token, AS_STORED));
    expect(parts).toHaveLength(205);
    expect(new Set(parts.map((p) => uidsOf(p.data).sop)).size).toBe(205);
  }, 120_000);
});

describe('WADO-RS study and series metadata', () => {
  it('answers one DICOM JSON data set per visible instance, PHI included, pixel data left out', async () => {
    const res = await get(`${base}/studies/${study}/metadata`, doc.token, 'application/dicom+json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/dicom\+json/);
    const sets = res.json() as Array<Record<string, { vr: string; Value?: unknown[] }>>;
    expect(sets).toHaveLength(3);
    for (const set of sets) {
      expect(set['0020000D']!.Value).toEqual([study]);
      expect(set['7FE00010']?.Value).toBeUndefined();
      expect(set['00100010']!.Value).toBeDefined();
    }
    const series = (await get(`${base}/studies/${study}/series/${seriesX}/metadata`, doc.token)).json();
    expect(series).toHaveLength(2);
    expect((await get(`${base}/studies/${study}/metadata`, doc.token, 'application/dicom+xml')).statusCode).toBe(406);
    expect(await auditRows(doc, 'dicomweb.metadata')).not.toHaveLength(0);
  });
});

describe('transfer-syntax negotiation', () => {
  it('sends application/dicom without transfer-syntax as Explicit VR Little Endian: implicit LE re-encoded, pixels and attributes kept', async () => {
    const res = await get(instanceUrl('implicit'), doc.token, 'multipart/related; type="application/dicom"');
    expect(res.statusCode, res.body).toBe(200);
    const [part] = multipartParts(res);
    expect(part!.headers).toMatch(/application\/dicom; transfer-syntax=1.2.840.10008.1.2.1\r?$/m);
    const ds = parse(part!.data);
    expect(ds.string('x00020010')).toBe('1.2.840.10008.1.2.1');
    expect(pixelsOf(part!.data).equals(pixelsOf(uploaded.implicit!.bytes))).toBe(true);
    const original = parse(uploaded.implicit!.bytes);
    for (const tag of ['x00100010', 'x00080018', 'x0020000d', 'x00280010', 'x00281050'])
      expect(ds.string(tag), tag).toBe(original.string(tag));
    // As stored when asked with '*': the upload's bytes.
    const stored = multipartParts(await get(instanceUrl('implicit'), doc.token, AS_STORED));
    expect(stored[0]!.data.equals(uploaded.implicit!.bytes)).toBe(true);
  });

  it('decodes JPEG Lossless to Explicit VR LE when application/dicom has no transfer-syntax (lossless); a study mixes transcoded and stored parts', async () => {
    const res = await get(instanceUrl('jpeg'), doc.token, 'multipart/related; type="application/dicom"');
    expect(res.statusCode, res.body).toBe(200);
    const [part] = multipartParts(res);
    const ds = parse(part!.data);
    expect(ds.string('x00020010')).toBe('1.2.840.10008.1.2.1');
    expect(ds.elements.x7fe00010!.length).toBe(512 * 512 * 2 * 2);
    expect(ds.string('x00080018')).toBe(uploaded.jpeg!.sop);
    const whole = multipartParts(
      await get(`${base}/studies/${study}`, doc.token, 'multipart/related; type="application/dicom"'),
    );
    expect(whole).toHaveLength(3);
    for (const p of whole) {
      expect(p.headers).toMatch(/transfer-syntax=1.2.840.10008.1.2.1\r?$/m);
      expect(parse(p.data).string('x00020010')).toBe('1.2.840.10008.1.2.1');
    }
    // Already Explicit VR LE: sent as stored, byte for byte.
    expect(whole.some((p) => p.data.equals(uploaded.x1!.bytes))).toBe(true);
  });

  it('refuses (406) a lossy JPEG asked for as Explicit VR LE, naming the stored syntax and transfer-syntax=*; q-values pick the next acceptable', async () => {
    const refused = await get(instanceUrl('lossy'), doc.token, 'multipart/related; type="application/dicom"');
    expect(refused.statusCode).toBe(406);
    expect(refused.json().message).toMatch(/1\.2\.840\.10008\.1\.2\.4\.50 \(JPEG Baseline\).*transfer-syntax=\*/);
    const chosen = await get(
      instanceUrl('lossy'),
      doc.token,
      'multipart/related; type="application/dicom"; q=0.9, multipart/related; type="application/dicom"; transfer-syntax=1.2.840.10008.1.2.4.50; q=0.5',
    );
    expect(chosen.statusCode).toBe(200);
    expect(multipartParts(chosen)[0]!.data.equals(uploaded.lossy!.bytes)).toBe(true);
    for (const accept of ['application/json', 'multipart/related; type="application/dicom+xml"', 'image/jpeg'])
      expect((await get(instanceUrl('lossy'), doc.token, accept)).statusCode, accept).toBe(406);
    // A study holding a lossy instance: 406 for the whole answer when Explicit VR LE is the only choice.
    expect(
      (await get(`${base}/studies/${uploaded.lossy!.study}`, doc.token, 'multipart/related; type="application/dicom"'))
        .statusCode,
    ).toBe(406);
  });

  it('frames: octet-stream without transfer-syntax decodes JPEG Lossless to a native little-endian frame (rows × columns × 2 bytes)', async () => {
    const res = await get(
      `${instanceUrl('jpeg')}/frames/2`,
      doc.token,
      'multipart/related; type="application/octet-stream"',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^multipart\/related; type="application\/octet-stream"/);
    const [frame] = multipartParts(res);
    expect(frame!.headers).toMatch(/application\/octet-stream; transfer-syntax=1.2.840.10008.1.2.1/);
    expect(frame!.data.length).toBe(512 * 512 * 2);
    // The same as the frame of the whole object decoded to Explicit VR LE.
    const whole = multipartParts(
      await get(instanceUrl('jpeg'), doc.token, 'multipart/related; type="application/dicom"'),
    )[0]!;
    expect(
      pixelsOf(whole.data)
        .subarray(512 * 512 * 2)
        .equals(frame!.data),
    ).toBe(true);
  });

  it.skipIf(!hasDcmtk)(
    `frames: the decoded frame equals dcmtk's decompression (dcmdjpeg) (${hasDcmtk ? 'dcmtk found' : NO_DCMTK})`,
    async () => {
      const src = join(tmp, 'jpeg.dcm');
      const out = join(tmp, 'jpeg-native.dcm');
      writeFileSync(src, uploaded.jpeg!.bytes);
      execFileSync('dcmdjpeg', [src, out], { stdio: 'pipe' });
      const native = pixelsOf(readFileSync(out));
      const res = await get(
        `${instanceUrl('jpeg')}/frames/1,2`,
        doc.token,
        'multipart/related; type="application/octet-stream"',
      );
      const frames = multipartParts(res);
      expect(Buffer.concat(frames.map((f) => f.data)).equals(native.subarray(0, 2 * 512 * 512 * 2))).toBe(true);
    },
  );

  it('frames: transfer-syntax=* sends the stored bitstream; other types and syntaxes are 406', async () => {
    const star = await get(
      `${instanceUrl('jpeg')}/frames/1`,
      doc.token,
      'multipart/related; type="application/octet-stream"; transfer-syntax=*',
    );
    const [frame] = multipartParts(star);
    expect(frame!.headers).toMatch(/application\/octet-stream; transfer-syntax=1.2.840.10008.1.2.4.70/);
    expect(frame!.data.subarray(0, 2).equals(Buffer.from([0xff, 0xd8]))).toBe(true);
    const asJpeg = await get(
      `${instanceUrl('jpeg')}/frames/1`,
      doc.token,
      'multipart/related; type="image/jpeg"; transfer-syntax=1.2.840.10008.1.2.4.70',
    );
    expect(multipartParts(asJpeg)[0]!.headers).toMatch(/image\/jpeg; transfer-syntax=1.2.840.10008.1.2.4.70/);
    // image/jpeg without transfer-syntax means JPEG Baseline, which this lossless object is not.
    const baseline = await get(`${instanceUrl('jpeg')}/frames/1`, doc.token, 'multipart/related; type="image/jpeg"');
    expect(baseline.statusCode).toBe(406);
    expect(baseline.json().message).toMatch(/transfer-syntax=\*/);
    expect(
      (await get(`${instanceUrl('jpeg')}/frames/1`, doc.token, 'multipart/related; type="image/png"')).statusCode,
    ).toBe(406);
    // Native frames: octet-stream as today; a compressed syntax cannot be had.
    const native = await get(
      `${instanceUrl('x1')}/frames/1`,
      doc.token,
      'multipart/related; type="application/octet-stream"',
    );
    expect(multipartParts(native)[0]!.data.length).toBe(128 * 128 * 2);
    expect(
      (
        await get(
          `${instanceUrl('x1')}/frames/1`,
          doc.token,
          'multipart/related; type="application/octet-stream"; transfer-syntax=1.2.840.10008.1.2.4.70',
        )
      ).statusCode,
    ).toBe(406);
  });
});

describe('a frames answer once written', () => {
  it("frees the worker's buffer of a single frame, and leaves the views of a frame list to the collector", async () => {
    const freed = watchFreedSizes();
    try {
      const octets = 'multipart/related; type="application/octet-stream"';
      const one = await get(`${instanceUrl('x1')}/frames/1`, doc.token, octets);
      expect(one.statusCode, one.body).toBe(200);
      expect(multipartParts(one)[0]!.data.length).toBe(128 * 128 * 2);
      await vi.waitFor(() => expect(freed).toContain(128 * 128 * 2));

      freed.length = 0;
      const two = await get(`${instanceUrl('jpeg')}/frames/1,2`, doc.token, octets);
      const frames = multipartParts(two);
      expect(frames.map((f) => f.data.length)).toEqual([512 * 512 * 2, 512 * 512 * 2]);
      // Each frame intact, the second not the first's memory reused.
      expect(frames[0]!.data.equals(frames[1]!.data)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(freed.filter((bytes) => bytes >= 512 * 512 * 2)).toEqual([]);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('WADO-RS rendered', () => {
  it('renders an instance as JPEG by default and PNG when asked; other types are 406', async () => {
    const jpeg = await get(`${instanceUrl('x1')}/rendered`, doc.token);
    expect(jpeg.statusCode, jpeg.body).toBe(200);
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
    expect(jpeg.headers['cache-control']).toBe('private, no-store');
    const jm = await sharp(bytesOf(jpeg)).metadata();
    expect([jm.format, jm.width, jm.height]).toEqual(['jpeg', 128, 128]);
    const png = await get(`${instanceUrl('x1')}/rendered`, doc.token, 'image/png');
    const pm = await sharp(bytesOf(png)).metadata();
    expect([png.headers['content-type'], pm.format, pm.channels]).toEqual(['image/png', 'png', 1]);
    expect((await get(`${instanceUrl('x1')}/rendered`, doc.token, 'image/gif')).statusCode).toBe(406);
    expect((await get(`${instanceUrl('x1')}/rendered`, other.token)).statusCode).toBe(404);
  });

  it('renders one frame; a frame list or a frame past the last is 400', async () => {
    const second = await get(`${instanceUrl('jpeg')}/frames/2/rendered`, doc.token, 'image/png');
    expect(second.statusCode, second.body).toBe(200);
    const meta = await sharp(bytesOf(second)).metadata();
    expect([meta.width, meta.height]).toEqual([512, 512]);
    const first = await get(`${instanceUrl('jpeg')}/frames/1/rendered`, doc.token, 'image/png');
    expect(bytesOf(first).equals(bytesOf(second))).toBe(false);
    expect((await get(`${instanceUrl('jpeg')}/frames/3/rendered`, doc.token)).statusCode).toBe(400);
    expect((await get(`${instanceUrl('jpeg')}/frames/1,2/rendered`, doc.token)).statusCode).toBe(400);
  });

  it('honours window and viewport: a narrow window changes the pixels; the viewport sets the size', async () => {
    const plain = await sharp(bytesOf(await get(`${instanceUrl('x1')}/rendered`, doc.token, 'image/png'))).stats();
    const narrow = await sharp(
      bytesOf(await get(`${instanceUrl('x1')}/rendered?window=40,80,linear`, doc.token, 'image/png')),
    ).stats();
    expect(Math.abs(plain.channels[0]!.mean - narrow.channels[0]!.mean)).toBeGreaterThan(5);
    const small = await get(`${instanceUrl('x1')}/rendered?viewport=64,32&quality=50`, doc.token);
    const sm = await sharp(bytesOf(small)).metadata();
    expect([sm.width, sm.height]).toEqual([32, 32]);
    for (const q of [
      'window=40',
      'window=40,0',
      'window=1,2,sigmoid',
      'viewport=0,10',
      'viewport=5000,10',
      'quality=0',
    ])
      expect((await get(`${instanceUrl('x1')}/rendered?${q}`, doc.token)).statusCode, q).toBe(400);
  });

  it('renders a series and a study as multipart/related, one image per frame of each image instance, audited per instance', async () => {
    const series = await get(`${base}/studies/${study}/series/${seriesX}/rendered`, doc.token);
    expect(series.statusCode, series.body).toBe(200);
    expect(series.headers['content-type']).toMatch(/^multipart\/related; type="image\/jpeg"/);
    expect(multipartParts(series)).toHaveLength(2);
    const whole = await get(`${base}/studies/${study}/rendered`, doc.token, 'multipart/related; type="image/png"');
    const parts = multipartParts(whole);
    expect(parts).toHaveLength(4); // 2 frames of the JPEG Lossless CT, 1 of each small CT
    for (const p of parts) {
      expect(p.headers).toMatch(/Content-Type: image\/png/);
      expect((await sharp(p.data).metadata()).format).toBe('png');
    }
    const rows = await auditRows(doc, 'dicomweb.rendered');
    expect(rows.filter((r) => r.reason === 'level=study frames=2')).toHaveLength(1);
    expect(rows.filter((r) => r.reason?.startsWith('level=study'))).toHaveLength(3);
  });
});

describe('QIDO-RS', () => {
  type Result = Record<string, { vr: string; Value?: unknown[] }>;
  const qido = async (query: string, token = doc.token) => {
    const res = await get(`${base}/${query}`, token);
    expect(res.statusCode, res.body).toBe(200);
    return { rows: res.json() as Result[], warning: res.headers.warning as string | undefined };
  };

  it('answers the level’s default attributes from the stored metadata (patient name, study description), with the counts', async () => {
    const { rows } = await qido(`studies?StudyInstanceUID=${study}`);
    expect(rows).toHaveLength(1);
    const s = rows[0]!;
    expect(s['00100010']!.vr).toBe('PN');
    expect(s['00100020']).toBeDefined();
    expect(s['00081030']).toBeDefined();
    expect(s['00201206']!.Value).toEqual([2]);
    expect(s['00201208']!.Value).toEqual([3]);
    expect(s['00081190']!.Value).toEqual([`http://medshare.test${base}/studies/${study}`]);
    // Another provider finds nothing of it.
    expect((await qido(`studies?StudyInstanceUID=${study}`, other.token)).rows).toHaveLength(0);
  });

  it('adds includefield attributes (keyword or tag), and every attribute for all; unknown names are ignored with a warning', async () => {
    const plain = (await qido(`studies/${study}/series?SeriesInstanceUID=${seriesX}`)).rows[0]!;
    expect(plain['00080070']).toBeUndefined(); // Manufacturer
    const named = (await qido(`studies/${study}/series?SeriesInstanceUID=${seriesX}&includefield=Manufacturer`))
      .rows[0]!;
    expect(named['00080070']).toBeDefined();
    const byTag = (await qido(`studies/${study}/series?SeriesInstanceUID=${seriesX}&includefield=00080070`)).rows[0]!;
    expect(byTag['00080070']).toEqual(named['00080070']);
    const all = (await qido(`studies/${study}/series/${seriesX}/instances?includefield=all`)).rows[0]!;
    expect(Object.keys(all).length).toBeGreaterThan(40);
    expect(all['7FE00010']?.Value).toBeUndefined();
    const unknown = await qido(`studies?includefield=NoSuchKeyword,PatientAge`);
    expect(unknown.warning).toBe(QidoWarnings.unknownFields);
  });

  it('pages with limit and offset (a warning when more follow) and refuses an offset past the window', async () => {
    const first = await qido(`studies/${study}/instances?limit=2`);
    expect(first.rows).toHaveLength(2);
    expect(first.warning).toBe(QidoWarnings.more);
    const rest = await qido(`studies/${study}/instances?limit=2&offset=2`);
    expect(rest.rows).toHaveLength(1);
    expect(rest.warning).toBeUndefined();
    const sops = [...first.rows, ...rest.rows].map((r) => r['00080018']!.Value![0]);
    expect(new Set(sops).size).toBe(3);
    const far = await get(`${base}/studies?offset=10000`, doc.token);
    expect(far.statusCode).toBe(400);
    expect(far.json().errors[0].field).toBe('offset');
  });

  const sopsOf = async (query: string) =>
    (await qido(`instances?${query}`)).rows.map((r) => r['00080018']!.Value![0] as string).sort();

  it('matches PatientName, AccessionNumber and StudyDescription on the stored metadata: whole value with * and ?, names regardless of case', async () => {
    expect(await sopsOf('PatientName=PLA')).toEqual([uploaded.lossy!.sop]);
    expect(await sopsOf('PatientName=pla')).toEqual([uploaded.lossy!.sop]);
    expect(await sopsOf('PatientName=Perfusion*')).toEqual([uploaded.jpeg!.sop]);
    expect(await sopsOf('00100010=P?A')).toEqual([uploaded.lossy!.sop]);
    expect(await sopsOf('PatientName=Perf')).toEqual([]);
    expect(await sopsOf('AccessionNumber=0010')).toEqual([uploaded.jpeg!.sop]);
    expect(await sopsOf('AccessionNumber=00*')).toEqual([uploaded.jpeg!.sop]);
    expect(await sopsOf('StudyDescription=E%2B1')).toEqual([]);
    expect(await sopsOf('StudyDescription=e%2B1')).toEqual(
      [uploaded.x1!.sop, uploaded.x2!.sop, uploaded.implicit!.sop].sort(),
    );
    // Paging applies to the matches.
    const page = await qido('instances?PatientName=Compressed*&limit=2&offset=1');
    expect(page.rows).toHaveLength(2);
    expect(page.warning).toBeUndefined();
    expect((await qido('instances?PatientName=Compressed*&limit=2')).warning).toBe(QidoWarnings.more);
    // Another provider's names find nothing of this one's.
    expect((await qido('instances?PatientName=PLA', other.token)).rows).toHaveLength(0);
  });

  it('with fuzzymatching=true, matches a person name by the beginning of any of its parts, regardless of case', async () => {
    expect(await sopsOf('PatientName=mca&fuzzymatching=true')).toEqual([uploaded.jpeg!.sop]);
    expect(await sopsOf('PatientName=stro%20perf&fuzzymatching=true')).toEqual([uploaded.jpeg!.sop]);
    expect(await sopsOf('PatientName=mca&fuzzymatching=false')).toEqual([]);
    expect((await qido('studies?fuzzymatching=true')).warning).toBeUndefined();
  });

  it('matches StudyDate exactly or as a range; a malformed date is 400', async () => {
    expect(await sopsOf('StudyDate=20160503')).toEqual([uploaded.lossy!.sop]);
    expect(await sopsOf('StudyDate=20160101-')).toEqual([uploaded.lossy!.sop]);
    expect(await sopsOf('00080020=-20040119')).toEqual([uploaded.x1!.sop, uploaded.x2!.sop].sort());
    expect(await sopsOf('StudyDate=20040801-20061231')).toEqual([uploaded.implicit!.sop, uploaded.jpeg!.sop].sort());
    for (const bad of ['2016', '20160230', '-', '20160101-2016', '00000101', '-00000101', '00000101-'])
      expect((await get(`${base}/instances?StudyDate=${bad}`, doc.token)).statusCode, bad).toBe(400);
  });

  it('names the attributes it was asked to match on but does not, in a Warning, and matches the rest', async () => {
    const res = await qido('studies?ReferringPhysicianName=Smith&00080030=0800&PatientName=PLA&cachebust=1');
    expect(res.rows).toHaveLength(1);
    expect(res.warning).toBe(QidoWarnings.notMatched(['ReferringPhysicianName', '00080030']));
  });

  describe('a study of a CT and an MR series (another provider)', () => {
    let owner: SignedIn;
    const mixed = '2.25.81010';
    const ids: Record<'ct' | 'mr', string> = { ct: '', mr: '' };
    beforeAll(async () => {
      owner = await newUser(t, 'healthProvider');
      for (const modality of ['ct', 'mr'] as const) {
        const uids = { study: mixed, series: `${mixed}.${modality === 'ct' ? 1 : 2}`, sop: `${mixed}.${modality}.1` };
        const bytes = moved('ct_explicit_le_16bit_signed_small.dcm', uids, modality.toUpperCase());
        const res = await uploadFile(t, owner.token, { ...dcm('ct_explicit_le_16bit_signed_small.dcm'), data: bytes });
        expect(res.statusCode, res.body).toBe(201);
        ids[modality] = res.json().data.id;
      }
    });
    const count = async (query: string) => (await qido(query, owner.token)).rows.length;

    it('ModalitiesInStudy selects studies with one of the modalities (CT\\MR a list); their modalities and counts cover every instance', async () => {
      const { rows } = await qido('studies?ModalitiesInStudy=MR', owner.token);
      expect(rows).toHaveLength(1);
      expect(rows[0]!['0020000D']!.Value).toEqual([mixed]);
      expect(rows[0]!['00080061']!.Value).toEqual(['CT', 'MR']);
      expect(rows[0]!['00201206']!.Value).toEqual([2]);
      expect(rows[0]!['00201208']!.Value).toEqual([2]);
      expect(await count('studies?ModalitiesInStudy=PT%5CMR')).toBe(1);
      expect(await count('studies?00080061=CT%5CPT')).toBe(1);
      expect(await count('studies?ModalitiesInStudy=PT')).toBe(0);
      // At series level it is a study attribute too: both series of the study.
      expect(await count('series?ModalitiesInStudy=MR')).toBe(2);
      expect(await count('series?Modality=MR')).toBe(1);
    });

    it('* alone (and an empty value) is universal matching for every attribute: PatientID, Modality, ModalitiesInStudy, UIDs, StudyDate', async () => {
      expect(await count('instances')).toBe(2);
      for (const q of [
        'PatientID=*',
        '00100020=*',
        'PatientID=',
        'Modality=*',
        'ModalitiesInStudy=*',
        'StudyInstanceUID=*',
        'SeriesInstanceUID=*',
        'SOPInstanceUID=*',
        'StudyDate=*',
        'PatientName=*',
      ])
        expect(await count(`instances?${q}`), q).toBe(2);
      expect(await count('studies?PatientID=*&Modality=*')).toBe(1);
    });

    it('audits one row per result whose attributes carry PHI (the instance they came from), besides the query row', async () => {
      const rowsOf = async (query: string) => {
        const before = (await auditRows(owner, 'dicomweb.query')).length;
        await qido(query, owner.token);
        return (await auditRows(owner, 'dicomweb.query')).slice(before);
      };
      const studies = await rowsOf('studies');
      expect(studies.filter((r) => r.record_id === null).map((r) => r.reason)).toEqual(['level=studies results=1']);
      const perResult = studies.filter((r) => r.record_id !== null);
      expect(perResult).toHaveLength(1);
      expect([ids.ct, ids.mr]).toContain(perResult[0]!.record_id);
      expect(perResult[0]!.reason).toBe('level=studies result');
      // Instance level without PHI attributes (the stack viewer's includefield): the query row only.
      expect(await rowsOf('instances?includefield=InstanceNumber,ImagePositionPatient,SliceLocation')).toHaveLength(1);
      for (const query of ['instances?includefield=PatientName', 'instances?includefield=all', 'series']) {
        const rows = (await rowsOf(query)).filter((r) => r.record_id !== null);
        expect(rows.map((r) => r.record_id).sort(), query).toEqual([ids.ct, ids.mr].sort());
      }
    });
  });
});

describe('capabilities (PS3.18 §8.9)', () => {
  interface Node {
    path: string;
    methods: Array<{ id: string; name: string; accept: string[] }>;
    children?: Node[];
  }

  it('answers OPTIONS and GET on the service root with a WADL document, open to anyone', async () => {
    for (const method of ['OPTIONS', 'GET'] as const) {
      const res = await t.request({ method, url: base });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/vnd\.sun\.wadl\+xml/);
      expect(res.body).toMatch(
        /^<\?xml version="1.0" encoding="UTF-8"\?>\n<application xmlns="http:\/\/wadl.dev.java.net\/2009\/02">/,
      );
      expect(res.body).toContain(`<resources base="http://medshare.test${base}">`);
      expect(res.body.match(/<resource /g)!.length).toBe(res.body.match(/<\/resource>/g)!.length);
      for (const id of [
        'SearchForStudies',
        'StoreInstances',
        'RetrieveStudy',
        'StoreStudyInstances',
        'RetrieveSeriesMetadata',
        'RetrieveFrames',
        'RetrieveRenderedFrame',
      ])
        expect(res.body).toContain(`id="${id}"`);
    }
    expect((await t.request({ method: 'GET', url: base, headers: { accept: 'text/html' } })).statusCode).toBe(406);
  });

  it('lists in its JSON form only resources that answer: every read method, asked with its first Accept option, is 200', async () => {
    const res = await t.request({ method: 'GET', url: base, headers: { accept: 'application/json' } });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const { base: root, resources } = res.json() as { base: string; resources: Node[] };
    expect(root).toBe(`http://medshare.test${base}`);
    const values: Record<string, string> = {
      '{StudyInstanceUID}': study,
      '{SeriesInstanceUID}': seriesJ,
      '{SOPInstanceUID}': uploaded.jpeg!.sop,
      '{FrameList}': '1',
    };
    const checked: string[] = [];
    const walk = async (nodes: Node[], prefix: string) => {
      for (const node of nodes) {
        const url = `${prefix}/${values[node.path] ?? node.path}`;
        // Reads only: the store methods are held by stow.test.ts.
        for (const m of node.methods.filter((method) => method.name === 'GET')) {
          const answer = await get(url, doc.token, m.accept[0]);
          expect(answer.statusCode, `${m.id} ${url}: ${answer.body.slice(0, 200)}`).toBe(200);
          checked.push(m.id);
        }
        await walk(node.children ?? [], url);
      }
    };
    await walk(resources, base);
    expect(checked).toHaveLength(17);
  });
});

async function auditRows(who: SignedIn, action: string) {
  return t.app.ctx.database.db
    .selectFrom('audit_logs')
    .select(['record_id', 'reason'])
    .where('user_id', '=', who.user.id)
    .where('action_type', '=', action)
    .orderBy('id')
    .execute();
}

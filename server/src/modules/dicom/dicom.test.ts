import dcmjs from 'dcmjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { bytesOf, fixture, uploadFile } from '../images/images.test-helpers.ts';
import { generateStudy, newUid } from '../studies/studies.test-helpers.ts';
import { DicomMessages } from './dicom-core.ts';
import { NO_DCMTK, dcmdump, hasDcmtk } from './dicom-test-helpers.ts';
import { PROFILE } from './deidentify.ts';

let t: TestApp;
let doc: SignedIn;
let other: SignedIn;
let patient: SignedIn;
beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
  other = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient');
});
afterAll(async () => t?.close());

const get = (url: string, token?: string) => t.request({ method: 'GET', url, token });
const dcm = (name: string) => fixture(`dicom/${name}`);
const upload = async (name: string, token = doc.token, data?: Buffer) => {
  const f = dcm(name);
  return uploadFile(t, token, { ...f, data: data ?? f.data }, { caption: name });
};

/** Shares an image and verifies the share as the recipient; returns the share data. */
async function shareTo(imageId: string, to: SignedIn, extra: Record<string, unknown> = {}, verify = true) {
  const res = await t.request({
    method: 'POST',
    url: '/api/sharing/request',
    token: doc.token,
    payload: { imagemetadataId: imageId, createdfor: to.user.id, ...extra },
  });
  if (res.statusCode !== 201) return res;
  if (verify) {
    const code = codeIn(await t.smtp.lastTo(to.user.email));
    const v = await t.request({
      method: 'POST',
      url: '/api/sharing/verify',
      token: to.token,
      payload: { sharingRequestId: res.json().data.id, verificationCode: code },
    });
    expect(v.statusCode, v.body).toBe(200);
  }
  return res;
}

function blobCount(): number {
  const root = join(t.dataDir, 'blobs');
  let n = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else n++;
    }
  };
  walk(root);
  return n;
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

describe('upload of DICOM objects', () => {
  it('accepts every image fixture with its non-PHI attributes on the list item, and documents (SR, ECG) without thumbnail', async () => {
    const res = await upload('ct_explicit_le_16bit_signed_small.dcm');
    expect(res.statusCode, res.body).toBe(201);
    const item = res.json().data;
    expect(item.thumbnailStatus).toBe('pending');
    expect(item.dicom).toMatchObject({
      kind: 'image',
      modality: 'CT',
      rows: 128,
      columns: 128,
      frames: 1,
      bitsAllocated: 16,
      bitsStored: 16,
      photometricInterpretation: 'MONOCHROME2',
      transferSyntaxUid: '1.2.840.10008.1.2.1',
      deidentified: false,
    });
    expect(item.dicom.studyInstanceUid).toMatch(/^[\d.]+$/);
    for (const name of ['sr_comprehensive_explicit_le.dcm', 'ecg_waveform_12lead.dcm']) {
      const doc2 = await upload(name);
      expect(doc2.statusCode, doc2.body).toBe(201);
      expect(doc2.json().data.dicom.kind).toBe('document');
      expect(doc2.json().data.thumbnailStatus).toBe('none');
    }
  });

  it('stores a file whose Study Date is no day of the calendar, with the date left empty; a real leap day is kept', async () => {
    for (const [studyDate, stored] of [
      ['20230231', null],
      ['00000101', null],
      ['20231301', null],
      ['20240229', '2024-02-29'],
      ['20230229', null],
    ] as const) {
      const file = generateStudy([1], { extra: [`(0008,0020)=${studyDate}`] }).series[0]!.instances[0]!.file;
      const res = await uploadFile(t, doc.token, file, { caption: `Study of ${studyDate}` });
      expect(res.statusCode, `${studyDate}: ${res.body}`).toBe(201);
      expect(res.json().data.dicom.studyDate, studyDate).toBe(stored);
    }
  });

  it('stores a document whose Rows, Columns or Bits are out of their range (four bytes in a malformed file) with them empty', async () => {
    for (const [tag, value] of [
      ['00280010', 3_000_000_000],
      ['00280011', 4_000_000_000],
      ['00280100', 70_000],
      ['00280101', 70_000],
    ] as const) {
      const source = dcm('sr_comprehensive_explicit_le.dcm');
      const message = dcmjs.data.DicomMessage.readFile(
        source.data.buffer.slice(source.data.byteOffset, source.data.byteOffset + source.data.length) as ArrayBuffer,
      );
      message.dict[tag] = { vr: 'UL', Value: [value] };
      // Each its own instance (the duplicate rule would answer the second as stored).
      const sop = newUid();
      message.dict['00080018'] = { vr: 'UI', Value: [sop] };
      message.meta['00020003'] = { vr: 'UI', Value: [sop] };
      const data = Buffer.from(message.write({ allowInvalidVRLength: true }));
      const res = await uploadFile(t, doc.token, { ...source, data }, { caption: `${tag} out of range` });
      expect(res.statusCode, `${tag}: ${res.body}`).toBe(201);
      expect(res.json().data.dicom).toMatchObject({ kind: 'document', rows: null, columns: null });
    }
  });

  it('refuses a truncated file (400), a DICOMDIR (415) and non-DICOM bytes named .dcm (415), storing nothing', async () => {
    // Thumbnails of earlier uploads are written in the background: let them land before counting.
    await t.app.ctx.services.images.idle();
    const before = blobCount();
    const truncated = await upload('malformed_truncated_pixeldata.dcm');
    expect(truncated.statusCode).toBe(400);
    expect(truncated.json().message).toBe(DicomMessages.truncated);
    const dicomdir = await upload('dicomdir_explicit_le.dcm');
    expect(dicomdir.statusCode).toBe(415);
    expect(dicomdir.json().message).toBe(DicomMessages.dicomdir);
    const junk = Buffer.alloc(4000, 0);
    junk.write('DICM', 128, 'latin1');
    const empty = await upload('ct_explicit_le_16bit_signed_small.dcm', doc.token, junk);
    expect([400, 415]).toContain(empty.statusCode);
    expect(blobCount()).toBe(before);
  });

  it('accepts malformed_missing_seq_delimiter.dcm (lenient, frame 0 decodes) and makes its thumbnail', async () => {
    const res = await upload('malformed_missing_seq_delimiter.dcm');
    expect(res.statusCode, res.body).toBe(201);
    await t.app.ctx.services.images.idle();
    const thumb = await get(`/api/images/${res.json().data.id}/thumbnail`, doc.token);
    expect(thumb.statusCode).toBe(200);
  });

  it('makes a JPEG thumbnail for every image fixture, through the upload pipeline', async () => {
    const names = imageFixtures;
    const ids: Array<[string, string, string]> = [];
    // Every fixture as a new image: a fresh uploader (earlier tests stored some of them for `doc`),
    // and another one for CT1_UNC's JPEG-LS copy, the same instance (SOP Instance UID) as its
    // implicit VR file, which is stored once per uploader and patient (docs/product.md › Upload).
    const uploaders = [await newUser(t, 'healthProvider'), await newUser(t, 'healthProvider')];
    for (const name of names) {
      let token = uploaders[0]!.token;
      let res = await upload(name, token);
      if (res.statusCode === 200 && res.json().code === 'duplicate') {
        token = uploaders[1]!.token;
        res = await upload(name, token);
      }
      expect(res.statusCode, `${name}: ${res.body}`).toBe(201);
      ids.push([name, res.json().data.id, token]);
    }
    await t.app.ctx.services.images.idle();
    for (const [name, id, token] of ids) {
      const res = await get(`/api/images/${id}/thumbnail`, token);
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      const meta = await sharp(bytesOf(res)).metadata();
      expect(meta.format, name).toBe('jpeg');
      expect(Math.max(meta.width!, meta.height!), name).toBeLessThanOrEqual(320);
    }
  });
});

const imageFixtures = [
  'cr_implicit_le_no_preamble_mono1.dcm',
  'cr_jpeg2000_lossy_mono1.dcm',
  'ct_explicit_le_16bit_signed_small.dcm',
  'ct_implicit_le_16bit_signed.dcm',
  'ct_jpeg_ls_lossless_16bit_signed.dcm',
  'ct_multiframe_jpeg_lossless_sv1.dcm',
  'mr_explicit_be_16bit_signed.dcm',
  'mr_jpeg2000_lossless_16bit_signed.dcm',
  'mr_multiframe_rle_16bit.dcm',
  'nm_jpeg_extended_12bit.dcm',
  'ot_deflated_8bit.dcm',
  'us_multiframe_ybr422_jpeg_baseline.dcm',
  'us_palette_color_rle_2frame.dcm',
  'us_rgb_explicit_le_8bit.dcm',
];

describe('metadata and PHI', () => {
  it('gives PHI and UIDs to content viewers only; a pending recipient sees non-PHI attributes; a stranger 404', async () => {
    const id = (await upload('ct_explicit_le_16bit_signed_small.dcm')).json().data.id;
    const mine = await get(`/api/images/${id}/dicom/metadata`, doc.token);
    expect(mine.statusCode).toBe(200);
    expect(mine.headers['cache-control']).toBe('private, no-store');
    expect(mine.json().data.phi.patientName).toBe('CompressedSamples^CT1');
    expect(mine.json().data.dicom.sopInstanceUid).toMatch(/^[\d.]+$/);

    await shareTo(id, patient, {}, false);
    const pending = await get(`/api/images/${id}/dicom/metadata`, patient.token);
    expect(pending.statusCode).toBe(200);
    expect(pending.json().data.phi).toBeNull();
    expect(pending.json().data.dicom).toMatchObject({ modality: 'CT', studyInstanceUid: null, sopInstanceUid: null });
    const list = await get('/api/upload/shared-images', patient.token);
    const item = list.json().data.find((i: { id: string }) => i.id === id);
    expect(item.dicom.modality).toBe('CT');
    expect(item.dicom.studyInstanceUid).toBeNull();
    expect(JSON.stringify(list.json())).not.toContain('CompressedSamples');

    expect((await get(`/api/images/${id}/dicom/metadata`, other.token)).statusCode).toBe(404);
  });

  it('answers 404, not 500, to a de-identified share whose source is deleted while its copy is read', async () => {
    const source = (await upload('ct_explicit_le_16bit_signed_small.dcm')).json().data;
    await t.app.ctx.services.images.idle();
    const store = t.app.ctx.store;
    const readAll = store.readAll.bind(store);
    let deleted: number | undefined;
    store.readAll = async (...args) => {
      store.readAll = readAll;
      deleted = (await t.request({ method: 'DELETE', url: `/api/upload/image/${source.id}`, token: doc.token }))
        .statusCode;
      await t.app.ctx.services.images.idle();
      rmSync(join(t.dataDir, 'blobs', source.id.slice(0, 2), source.id), { force: true });
      blobsBefore = blobCount();
      return readAll(...args);
    };
    let blobsBefore: number | undefined;
    const share = await shareTo(source.id, await newUser(t, 'healthProvider'), { deidentify: true }, false);
    expect(deleted).toBe(200);
    expect(share.statusCode, share.body).toBe(404);
    expect(share.json().message).toBe('Image not found');
    // No copy left behind.
    expect(blobCount()).toBe(blobsBefore);
  });
});

describe.skipIf(!hasDcmtk)(`de-identified sharing (${hasDcmtk ? 'dcmdump found' : NO_DCMTK})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'deid-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function copyBytes(copyId: string) {
    const res = await get(`/api/images/${copyId}/content`, doc.token);
    expect(res.statusCode).toBe(200);
    return bytesOf(res);
  }

  it('shares a de-identified copy: no profile attribute keeps a value, no private tag, PatientIdentityRemoved=YES', async () => {
    for (const name of [
      'ct_explicit_le_16bit_signed_small.dcm',
      'us_palette_color_rle_2frame.dcm',
      'cr_implicit_le_no_preamble_mono1.dcm',
      'mr_explicit_be_16bit_signed.dcm',
      'sr_comprehensive_explicit_le.dcm',
    ]) {
      const source = (await upload(name)).json().data;
      const recipient = await newUser(t, 'healthProvider');
      const share = await shareTo(source.id, recipient, { deidentify: true });
      expect(share.statusCode, share.body).toBe(201);
      const copyId = share.json().data.imageId;
      expect(copyId).not.toBe(source.id);
      const bytes = await copyBytes(copyId);
      const file = join(dir, `${copyId}.dcm`);
      writeFileSync(file, bytes);
      const dump = dcmdump(file);
      for (const line of dump.split('\n')) {
        const m = /^\s*\(([0-9a-f]{4}),([0-9a-f]{4})\) (\w\w) (.*)$/.exec(line);
        if (!m) continue;
        const tag = `${m[1]}${m[2]}`.toUpperCase();
        const group = Number.parseInt(m[1]!, 16);
        expect(group % 2 === 1 && !tag.startsWith('FFFE'), `${name}: private ${tag}`).toBe(false);
        const rule = PROFILE.get(tag);
        if (!rule) continue;
        const empty = /no value available/.test(m[4]!);
        if (rule.action === 'X') expect.fail(`${name}: ${rule.name} (${tag}) should be removed: ${line}`);
        if (rule.action === 'Z') expect(empty, `${name}: ${rule.name} should be empty: ${line}`).toBe(true);
        if (rule.action === 'U') expect(m[4], `${name}: ${rule.name}`).toMatch(/\[2\.25\.\d+\]/);
        if (rule.action === 'D') expect(empty || /ANONYMIZED/.test(m[4]!), `${name}: ${rule.name}`).toBe(true);
      }
      expect(dump).toMatch(/\(0012,0062\) CS \[YES\]/);
      expect(dump).toMatch(/\(0012,0063\) LO \[MedShare: DICOM PS3.15 Annex E/);
      // None of the source's identifying values survives anywhere in the copy's bytes.
      const original = dcmdump(join(join(import.meta.dirname, '../../../test/fixtures/dicom'), name));
      // (InstitutionName is checked by the profile loop above: its value can also be part of the kept Manufacturer.)
      for (const tag of ['0010,0010', '0010,0020', '0010,0030', '0008,0050', '0008,0090', '0020,000d', '0008,0018']) {
        const value = new RegExp(`^\\(${tag}\\) \\w\\w \\[([^\\]]+)\\]`, 'm').exec(original)?.[1]?.trim();
        if (value && value.length > 2)
          expect(bytes.includes(Buffer.from(value, 'latin1')), `${name} ${tag}`).toBe(false);
      }
      // The recipient sees the copy only, with no patient link and the de-identified flag.
      const list = (await get('/api/upload/my-images', recipient.token)).json().data;
      expect(list.map((i: { id: string }) => i.id)).toEqual([copyId]);
      expect(list[0].patient).toBeNull();
      expect(list[0].dicom.deidentified).toBe(true);
      expect((await get(`/api/images/${source.id}/content`, recipient.token)).statusCode).toBe(404);
      const meta = (await get(`/api/images/${copyId}/dicom/metadata`, recipient.token)).json().data;
      expect(meta.phi.patientName).toBeNull();
    }
  });

  it('de-identified copies keep the pixels (dcmtk renders source and copy the same)', async () => {
    for (const name of ['mr_explicit_be_16bit_signed.dcm', 'us_palette_color_rle_2frame.dcm', 'ot_deflated_8bit.dcm']) {
      const source = (await upload(name)).json().data;
      const share = await shareTo(source.id, await newUser(t, 'healthProvider'), { deidentify: true });
      const file = join(dir, `px-${name}`);
      writeFileSync(file, await copyBytes(share.json().data.imageId));
      // Output goes to the temporary directory, never beside the fixtures.
      const render = (f: string) => {
        const out = join(dir, `render-${Math.random().toString(36).slice(2)}.pnm`);
        execFileSync('dcmj2pnm', ['+F', '1', '+Wm', f, out], { stdio: 'pipe' });
        return readFileSync(out);
      };
      expect(render(file).equals(render(join(import.meta.dirname, '../../../test/fixtures/dicom', name))), name).toBe(
        true,
      );
    }
  });

  it('maps UIDs consistently: two uploads of one study give copies with the same new UIDs, unlike the originals', async () => {
    // Two images of one study: the same instance twice is stored once per patient, so the second is the patient's.
    const a = (await upload('mr_multiframe_rle_16bit.dcm')).json().data;
    const b = (
      await uploadFile(t, doc.token, dcm('mr_multiframe_rle_16bit.dcm'), {
        caption: 'second upload',
        patientId: patient.user.id,
      })
    ).json().data;
    expect(b.id).not.toBe(a.id);
    const r1 = await newUser(t, 'healthProvider');
    const ca = (await shareTo(a.id, r1, { deidentify: true })).json().data.imageId;
    const cb = (await shareTo(b.id, r1, { deidentify: true })).json().data.imageId;
    expect(ca).not.toBe(cb);
    const meta = async (id: string) => (await get(`/api/images/${id}/dicom/metadata`, doc.token)).json().data.dicom;
    const [ma, mb, orig] = [await meta(ca), await meta(cb), await meta(a.id)];
    expect(ma.studyInstanceUid).toMatch(/^2\.25\.\d+$/);
    expect(ma.studyInstanceUid).toBe(mb.studyInstanceUid);
    expect(ma.seriesInstanceUid).toBe(mb.seriesInstanceUid);
    expect(ma.sopInstanceUid).toBe(mb.sopInstanceUid);
    expect(ma.studyInstanceUid).not.toBe(orig.studyInstanceUid);
    // A second de-identified share of the same source reuses its copy.
    const again = await shareTo(a.id, await newUser(t, 'healthProvider'), { deidentify: true });
    expect(again.json().data.imageId).toBe(ca);
  });

  // The copy's row and its metadata were two statements: a failure between them left a live row whose
  // blob was removed, reused by every later de-identified share (found by a review).
  it('stores a de-identified copy whole or not at all: its row, metadata and audit row commit together', async () => {
    const owner = await newUser(t, 'healthProvider');
    const source = (await upload('us_rgb_rle_8bit.dcm', owner.token)).json().data.id as string;
    const share = (to: SignedIn) =>
      t.request({
        method: 'POST',
        url: '/api/sharing/request',
        token: owner.token,
        payload: { imagemetadataId: source, createdfor: to.user.id, deidentify: true },
      });
    const db = t.app.ctx.database.db;
    const copies = () => db.selectFrom('images').select('id').where('source_image_id', '=', source).execute();
    // A fault on the metadata's insert only (a dropped connection or a full disk would do the same).
    await sql`CREATE FUNCTION refuse_copy_metadata() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF EXISTS (SELECT 1 FROM images WHERE id = NEW.image_id AND deidentified) THEN
        RAISE EXCEPTION 'injected'; END IF; RETURN NEW; END $$`.execute(db);
    await sql`CREATE TRIGGER refuse_copy_metadata BEFORE INSERT ON dicom_metadata
      FOR EACH ROW EXECUTE FUNCTION refuse_copy_metadata()`.execute(db);
    try {
      expect((await share(await newUser(t, 'healthProvider'))).statusCode).toBe(500);
    } finally {
      await sql`DROP TRIGGER refuse_copy_metadata ON dicom_metadata`.execute(db);
      await sql`DROP FUNCTION refuse_copy_metadata()`.execute(db);
    }
    expect(await copies()).toEqual([]);

    const again = await share(await newUser(t, 'healthProvider'));
    expect(again.statusCode, again.body).toBe(201);
    const copyId = again.json().data.imageId as string;
    expect((await copies()).map((c) => c.id)).toEqual([copyId]);
    expect(
      (await t.request({ method: 'GET', url: `/api/images/${copyId}/content`, token: owner.token })).statusCode,
    ).toBe(200);
    const audited = await db
      .selectFrom('audit_logs')
      .select('action_type')
      .where('record_id', '=', copyId)
      .where('action_type', '=', 'dicom.deidentify')
      .execute();
    expect(audited).toHaveLength(1);
  });

  it('refuses de-identified sharing of an image flagged with burned-in annotation (409), and of non-DICOM (400)', async () => {
    const file = join(dir, 'burned.dcm');
    writeFileSync(file, dcm('us_rgb_explicit_le_8bit.dcm').data);
    execFileSync('dcmodify', ['-nb', '-i', '(0028,0301)=YES', file], { stdio: 'pipe' });
    const res = await upload('us_rgb_explicit_le_8bit.dcm', doc.token, readFileSync(file));
    expect(res.statusCode, res.body).toBe(201);
    const refused = await shareTo(res.json().data.id, await newUser(t, 'healthProvider'), { deidentify: true });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toMatch(/burned-in annotation/);
    const jpg = await uploadFile(t, doc.token, fixture('other/photo_hopper_portrait.jpg'));
    const notDicom = await shareTo(jpg.json().data.id, await newUser(t, 'healthProvider'), { deidentify: true });
    expect(notDicom.statusCode).toBe(400);
  });
});

describe('DICOMweb', () => {
  let viewer: SignedIn;
  let image: { id: string };
  let uids: { study: string; series: string; sop: string };
  beforeAll(async () => {
    viewer = await newUser(t, 'healthProvider');
    image = (await upload('ct_explicit_le_16bit_signed_small.dcm', viewer.token)).json().data;
    const meta = (await get(`/api/images/${image.id}/dicom/metadata`, viewer.token)).json().data.dicom;
    uids = { study: meta.studyInstanceUid, series: meta.seriesInstanceUid, sop: meta.sopInstanceUid };
  });
  const base = '/api/dicomweb';

  it('QIDO-RS lists the caller’s studies, series and instances as application/dicom+json, filtered and paged', async () => {
    const studies = await get(`${base}/studies`, viewer.token);
    expect(studies.statusCode).toBe(200);
    expect(studies.headers['content-type']).toMatch(/^application\/dicom\+json/);
    expect(studies.headers['cache-control']).toBe('private, no-store');
    expect(studies.json()).toHaveLength(1);
    expect(studies.json()[0]['0020000D'].Value).toEqual([uids.study]);
    expect(studies.json()[0]['00080061'].Value).toEqual(['CT']);
    expect((await get(`${base}/studies?Modality=MR`, viewer.token)).json()).toHaveLength(0);
    expect((await get(`${base}/studies?PatientID=1CT1`, viewer.token)).json()).toHaveLength(1);
    expect((await get(`${base}/studies?PatientID=nobody`, viewer.token)).json()).toHaveLength(0);
    expect((await get(`${base}/studies?offset=1`, viewer.token)).json()).toHaveLength(0);
    const series = (await get(`${base}/studies/${uids.study}/series`, viewer.token)).json();
    expect(series[0]['0020000E'].Value).toEqual([uids.series]);
    const instances = (await get(`${base}/studies/${uids.study}/series/${uids.series}/instances`, viewer.token)).json();
    expect(instances[0]['00080018'].Value).toEqual([uids.sop]);
    expect(instances[0]['00280010'].Value).toEqual([128]);
    // Someone the image is not shared with sees nothing; no token is 401.
    expect(
      (await get(`${base}/studies`, other.token))
        .json()
        .map((s: Record<string, { Value: string[] }>) => s['0020000D']!.Value[0]),
    ).not.toContain(uids.study);
    expect((await get(`${base}/studies`)).statusCode).toBe(401);
  });

  it('WADO-RS instance is byte-identical to the upload; metadata matches the stored tags; frames are the native bytes', async () => {
    const url = `${base}/studies/${uids.study}/series/${uids.series}/instances/${uids.sop}`;
    const inst = await get(url, viewer.token);
    expect(inst.statusCode).toBe(200);
    expect(inst.headers['content-type']).toMatch(/^multipart\/related; type="application\/dicom"; boundary=/);
    const parts = multipartParts(inst);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.headers).toMatch(/Content-Type: application\/dicom/);
    expect(parts[0]!.data.equals(dcm('ct_explicit_le_16bit_signed_small.dcm').data)).toBe(true);

    const meta = (await get(`${url}/metadata`, viewer.token)).json()[0];
    expect(meta['00100010'].Value[0].Alphabetic).toBe('CompressedSamples^CT1');
    expect(meta['00280010'].Value).toEqual([128]);
    expect(meta['00080018'].Value).toEqual([uids.sop]);
    expect(meta['7FE00010'].Value).toBeUndefined();

    const frames = await get(`${url}/frames/1`, viewer.token);
    expect(frames.statusCode).toBe(200);
    const [frame] = multipartParts(frames);
    expect(frame!.headers).toMatch(/application\/octet-stream; transfer-syntax=1.2.840.10008.1.2.1/);
    expect(frame!.data.length).toBe(128 * 128 * 2);
    const source = dcm('ct_explicit_le_16bit_signed_small.dcm').data;
    expect(source.includes(frame!.data)).toBe(true);
    expect((await get(`${url}/frames/2`, viewer.token)).statusCode).toBe(400);
    expect((await get(`${url}/frames/x`, viewer.token)).statusCode).toBe(400);
    expect((await get(url, other.token)).statusCode).toBe(404);
  });

  it('compressed frames come as stored, with their media type and transfer syntax (frames split over fragments joined)', async () => {
    const up = (await upload('ct_multiframe_jpeg_lossless_sv1.dcm', viewer.token)).json().data;
    const m = (await get(`/api/images/${up.id}/dicom/metadata`, viewer.token)).json().data.dicom;
    const res = await get(
      `${base}/studies/${m.studyInstanceUid}/series/${m.seriesInstanceUid}/instances/${m.sopInstanceUid}/frames/1,2`,
      viewer.token,
    );
    expect(res.statusCode).toBe(200);
    const parts = multipartParts(res);
    expect(parts).toHaveLength(2);
    for (const p of parts) {
      expect(p.headers).toMatch(/image\/jpeg; transfer-syntax=1.2.840.10008.1.2.4.70/);
      expect(p.data.subarray(0, 2).equals(Buffer.from([0xff, 0xd8]))).toBe(true);
    }
  });

  it('audits every DICOMweb read', async () => {
    const admin = t.app.ctx.database.db;
    const rows = await admin
      .selectFrom('audit_logs')
      .select('action_type')
      .where('user_id', '=', viewer.user.id)
      .execute();
    const actions = new Set(rows.map((r) => r.action_type));
    for (const a of ['dicomweb.query', 'dicomweb.instance', 'dicomweb.metadata', 'dicomweb.frames', 'dicom.metadata'])
      expect(actions).toContain(a);
  });
});

describe('fuzzing', () => {
  it('300 mutated fixtures: never a 5xx, and every stored blob belongs to an accepted upload', async () => {
    const sources = imageFixtures.map(dcm).filter((f) => f.data.length < 300_000);
    let seed = 12345;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    await t.app.ctx.services.images.idle();
    const before = blobCount();
    let accepted = 0;
    for (let i = 0; i < 300; i++) {
      const f = sources[i % sources.length]!;
      const data = Buffer.from(f.data);
      const kind = i % 3;
      if (kind === 0) {
        // Flip bytes in the header area (lengths, VRs, tags).
        for (let k = 0; k < 8; k++)
          data[132 + Math.floor(rand() * Math.min(2000, data.length - 133))] = Math.floor(rand() * 256);
      } else if (kind === 1) {
        for (let k = 0; k < 20; k++) data[Math.floor(rand() * data.length)] = Math.floor(rand() * 256);
      }
      const body = kind === 2 ? data.subarray(0, 140 + Math.floor(rand() * (data.length - 140))) : data;
      const res = await uploadFile(t, doc.token, { ...f, data: body }, { caption: `fuzz ${i}` });
      expect(res.statusCode, `${f.name} #${i}: ${res.body}`).toBeLessThan(500);
      if (res.statusCode === 201) accepted++;
    }
    await t.app.ctx.services.images.idle();
    const after = blobCount();
    const thumbs = await t.app.ctx.database.db
      .selectFrom('images')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('caption', 'like', 'fuzz %')
      .where('thumbnail_status', '=', 'ready')
      .executeTakeFirstOrThrow();
    expect(after - before).toBe(accepted + Number(thumbs.n));
  }, 240_000);
});

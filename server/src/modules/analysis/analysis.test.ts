import { AnalysisTexts } from '@medshare/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, loginAdmin, newUser } from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { AppError, tooManyRequests } from '../../errors.ts';
import { DICOM_BUSY } from '../dicom/dicom-engine.ts';
import { fixture, uploadFile } from '../images/images.test-helpers.ts';
import { type DicomDecoder, dicomAnalysisInput } from './dicom-input.ts';

let t: TestApp;
let doc: SignedIn;
let otherDoc: SignedIn;
let patient: SignedIn;
let admin: SignedIn;
const ids: Record<string, string> = {};

async function upload(token: string, file: { name: string; type: string; data: Buffer }, patientId?: string) {
  const res = await uploadFile(t, token, file, {
    caption: `Analysis ${file.name}`,
    ...(patientId ? { patientId } : {}),
  });
  if (res.statusCode !== 201) throw new Error(`upload ${file.name}: ${res.statusCode} ${res.body}`);
  return res.json().data.id as string;
}

beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
  otherDoc = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient');
  admin = await loginAdmin(t);
  const blank = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#7f7f7f' } })
    .png()
    .toBuffer();
  ids.jpg = await upload(doc.token, fixture('other/photo_hopper_portrait.jpg'), patient.user.id);
  ids.png = await upload(doc.token, fixture('other/photo_chelsea_cat.png'));
  ids.blank = await upload(doc.token, { name: 'blank.png', type: 'image/png', data: blank });
  ids.ct = await upload(doc.token, fixture('dicom/ct_explicit_le_16bit_signed_small.dcm'));
  ids.pdf = await upload(doc.token, fixture('other/minimal_document_1page.pdf'));
  ids.sr = await upload(doc.token, fixture('dicom/sr_comprehensive_explicit_le.dcm'));
});
afterAll(async () => t?.close());

const analyse = (id: string, token: string) => t.request({ method: 'GET', url: `/api/analysis/${id}`, token });
const rerun = (id: string, token: string) => t.request({ method: 'POST', url: `/api/analysis/${id}/run`, token });
const history = (id: string, token: string) => t.request({ method: 'GET', url: `/api/analysis/${id}/history`, token });
const db = () => t.app.ctx.database.db;

/** What every local report must hold: statistics, no diagnosis, the no-model warning, confidence 0. */
function expectHonestReport(data: Record<string, unknown>, imageId: string) {
  expect(data).toMatchObject({
    imageId,
    provider: 'local',
    differentialDiagnosis: [],
    treatment: [],
    confidence: 0,
    disclaimer: AnalysisTexts.disclaimer,
  });
  expect(data.warnings).toContain(AnalysisTexts.noDiagnosticModel);
  expect(data.description).toMatch(/mean \d+(\.\d)?, standard deviation/);
  expect(Number.isNaN(Date.parse(String(data.timestamp)))).toBe(false);
}

describe('access', () => {
  it('refuses a patient (no analysis:run) with 403, even for their own verified image', async () => {
    const res = await analyse(ids.jpg!, patient.token);
    expect(res.statusCode).toBe(403);
  });

  it('answers 404 to a provider who may not see the image', async () => {
    for (const res of [
      await analyse(ids.png!, otherDoc.token),
      await rerun(ids.png!, otherDoc.token),
      await history(ids.png!, otherDoc.token),
    ])
      expect(res.statusCode).toBe(404);
  });

  it('answers 404 for an image id that does not exist', async () => {
    expect((await analyse('1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b', doc.token)).statusCode).toBe(404);
  });

  it('answers 401 without a token', async () => {
    expect((await analyse(ids.png!, '')).statusCode).toBe(401);
  });

  it('lets an admin analyse an image someone else uploaded', async () => {
    const res = await analyse(ids.png!, admin.token);
    expect(res.statusCode, res.body).toBe(200);
    expectHonestReport(res.json().data, ids.png!);
  });

  it('lets a provider analyse an image shared with them only after verifying the share', async () => {
    const share = await t.request({
      method: 'POST',
      url: '/api/sharing/request',
      payload: { imagemetadataId: ids.blank, createdfor: otherDoc.user.id, expiresInHours: 24 },
      token: doc.token,
    });
    expect(share.statusCode, share.body).toBe(201);
    expect((await analyse(ids.blank!, otherDoc.token)).statusCode).toBe(404);
    await t.app.ctx.services.images.idle();
    const mail = await t.smtp.lastTo(otherDoc.user.email);
    const sharingId = /Sharing id: ([0-9a-f-]{36})/.exec(mail.text)![1];
    const verify = await t.request({
      method: 'POST',
      url: '/api/sharing/verify',
      payload: { sharingRequestId: sharingId, verificationCode: codeIn(mail) },
      token: otherDoc.token,
    });
    expect(verify.statusCode, verify.body).toBe(200);
    expect((await analyse(ids.blank!, otherDoc.token)).statusCode).toBe(200);
  });
});

describe('local provider', () => {
  it('reports size, bit depth and intensity statistics of a JPEG without naming any condition', async () => {
    const res = await analyse(ids.jpg!, doc.token);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expectHonestReport(data, ids.jpg!);
    expect(data.description).toContain('JPEG');
    expect(data.description).toContain('128 × 128 pixels, colour, 8 bits stored');
    expect(data.model).toBe('medshare-image-statistics-1');
  });

  it('reports a PNG photograph and finds no blank-image warning', async () => {
    const data = (await analyse(ids.png!, doc.token)).json().data;
    expectHonestReport(data, ids.png!);
    expect(data.description).toContain('451 × 300 pixels');
    expect(data.warnings.join(' ')).not.toMatch(/blank/);
  });

  it('warns that a uniform (sharp-generated) PNG is blank and suggests re-acquiring it', async () => {
    const data = (await analyse(ids.blank!, doc.token)).json().data;
    expectHonestReport(data, ids.blank!);
    expect(data.warnings.some((w: string) => w.startsWith('The image is blank or nearly blank'))).toBe(true);
    expect(data.followUp.join(' ')).toMatch(/re-acquiring/);
  });

  it('reads a DICOM CT through the DICOM module: modality, 16 bits stored, the window used', async () => {
    const res = await analyse(ids.ct!, doc.token);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expectHonestReport(data, ids.ct!);
    expect(data.description).toContain('DICOM CT image');
    expect(data.description).toContain('128 × 128 pixels, greyscale, 16 bits stored');
    expect(data.description).toMatch(/window centre -?\d/);
  });

  it('refuses a PDF with 400 and says that PDF analysis is not supported', async () => {
    const res = await analyse(ids.pdf!, doc.token);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(AnalysisTexts.pdfNotSupported);
  });

  it('refuses a DICOM object without pixel data (structured report) with 400', async () => {
    const res = await analyse(ids.sr!, doc.token);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(AnalysisTexts.noPixelData);
  });
});

describe('storage, reuse, history and audit', () => {
  it('returns the stored result on the next GET instead of running again', async () => {
    const first = (await analyse(ids.ct!, doc.token)).json();
    const second = (await analyse(ids.ct!, doc.token)).json();
    expect(first.data.reused).toBe(true); // the DICOM test above ran it
    expect(second.data.id).toBe(first.data.id);
    expect(second.message).toBe(AnalysisTexts.reused);
    const rows = await db().selectFrom('analyses').select('id').where('image_id', '=', ids.ct!).execute();
    expect(rows).toHaveLength(1);
  });

  it('re-run creates a new analysis that GET then returns, and history lists both newest first', async () => {
    const before = (await analyse(ids.jpg!, doc.token)).json().data;
    const res = await rerun(ids.jpg!, doc.token);
    expect(res.statusCode).toBe(201);
    const fresh = res.json().data;
    expect(fresh.id).not.toBe(before.id);
    expect(fresh.reused).toBe(false);
    expect((await analyse(ids.jpg!, doc.token)).json().data.id).toBe(fresh.id);
    const list = await history(ids.jpg!, doc.token);
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((a: { id: string }) => a.id)).toEqual([fresh.id, before.id]);
    expect(list.json().data[1]).toMatchObject({ provider: 'local', imageId: ids.jpg });
    expect(list.json().pagination).toMatchObject({ totalItems: 2, currentPage: 1 });
  });

  // Its result was sealed to the id as typed and opened with the stored lower-case one: every later
  // read of the image's analyses answered 500 (docs/security.md › Input).
  it('takes an upper-case image id as the same image: the run is stored under it and reads back', async () => {
    const id = ids.png!;
    const run = await rerun(id.toUpperCase(), doc.token);
    expect(run.statusCode).toBe(201);
    expect(run.json().data.imageId).toBe(id);
    for (const spelled of [id, id.toUpperCase()]) {
      const latest = await analyse(spelled, doc.token);
      expect(latest.statusCode).toBe(200);
      expect(latest.json().data.id).toBe(run.json().data.id);
      expect((await history(spelled, doc.token)).statusCode).toBe(200);
    }
  });

  it('writes an analysis.run audit row naming the provider and never the report text', async () => {
    const res = await rerun(ids.png!, doc.token);
    const id = res.json().data.id;
    const row = await db()
      .selectFrom('audit_logs')
      .selectAll()
      .where('record_id', '=', id)
      .where('action_type', '=', 'analysis.run')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ user_id: doc.user.id, table_name: 'analyses', status: 'success' });
    expect(row.reason).toContain('provider=local');
    expect(row.reason).not.toContain('mean');
  });

  it('audits a refused run (PDF) as a failed analysis.run', async () => {
    await analyse(ids.pdf!, doc.token);
    const rows = await db()
      .selectFrom('audit_logs')
      .selectAll()
      .where('action_type', '=', 'analysis.run')
      .where('status', '=', 'failure')
      .execute();
    expect(rows.some((r) => r.reason?.includes(`image=${ids.pdf}`) && r.reason.includes('error=bad_request'))).toBe(
      true,
    );
  });

  it('keeps the result only as ciphertext in the database', async () => {
    const data = (await analyse(ids.png!, doc.token)).json().data;
    const row = await db().selectFrom('analyses').selectAll().where('id', '=', data.id).executeTakeFirstOrThrow();
    const stored = Buffer.from(row.result_ciphertext);
    expect(stored.includes(Buffer.from('standard deviation'))).toBe(false);
    expect(stored.includes(Buffer.from(AnalysisTexts.noDiagnosticModel.slice(0, 30)))).toBe(false);
  });
});

describe('rate limit', () => {
  it('allows ten runs per minute per session, then answers 429 with the error envelope', async () => {
    const busy = await newUser(t, 'healthProvider');
    const small = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#404040' } })
      .png()
      .toBuffer();
    const id = await upload(busy.token, { name: 'small.png', type: 'image/png', data: small });
    for (let i = 0; i < 10; i++) expect((await rerun(id, busy.token)).statusCode).toBe(201);
    const refused = await rerun(id, busy.token);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ success: false });
    // Another session is not held back by this one.
    expect((await rerun(ids.png!, doc.token)).statusCode).toBe(201);
  });
});

describe('a DICOM image as analysis input', () => {
  const failingWith = (err: Error): DicomDecoder => ({ render: () => Promise.reject(err) });
  const failure = (err: Error) =>
    dicomAnalysisInput(Buffer.from('DICM'), failingWith(err), 'u1').catch((e: unknown) => e);

  it('says an image the engine cannot read cannot be decoded (400)', async () => {
    const refused = await failure(new AppError(400, 'invalid_dicom', 'No pixel data element.'));
    expect(refused).toMatchObject({ status: 400, message: `${AnalysisTexts.undecodable} No pixel data element.` });
    expect(await failure(new AppError(415, 'unsupported_type', 'Not supported.'))).toMatchObject({ status: 400 });
  });

  it('passes on a busy DICOM service as 429 with its Retry-After, and too large as 413: the image is not at fault', async () => {
    const busy = await failure(tooManyRequests(DICOM_BUSY, 5));
    expect(busy).toMatchObject({ status: 429, message: DICOM_BUSY });
    expect((busy as AppError).headers).toEqual({ 'retry-after': '5' });
    expect(await failure(new AppError(413, 'too_large', 'Over 64 MiB.'))).toMatchObject({ status: 413 });
  });
});

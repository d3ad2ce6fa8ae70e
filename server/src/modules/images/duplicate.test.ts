import { ImageMessages, UPLOAD_DUPLICATE_CODE } from '@medshare/contracts';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { DicomMessages } from '../dicom/dicom-core.ts';
import { fixture, uploadFile } from './images.test-helpers.ts';
import { createKeyedQueue } from './upload.ts';

// `docs/product.md` › Upload: a DICOM instance (SOP Instance UID) is stored once per uploader and patient.

let t: TestApp;
let doc: SignedIn;
let otherDoc: SignedIn;
let patient: SignedIn;
let otherPatient: SignedIn;
beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
  otherDoc = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient');
  otherPatient = await newUser(t, 'patient');
});
afterAll(async () => t?.close());

const ct = () => fixture('dicom/ct_explicit_le_16bit_signed_small.dcm');
const db = () => t.app.ctx.database.db;

/** Every stored blob (final objects and partial writes alike). */
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

async function liveRowsOf(sopInstanceUid: string, uploaderId: string) {
  return db()
    .selectFrom('images')
    .select(['id', 'patient_id'])
    .where('dicom_sop_instance_uid', '=', sopInstanceUid)
    .where('uploader_id', '=', uploaderId)
    .where('deleted_at', 'is', null)
    .execute();
}

describe('duplicate DICOM instances', () => {
  it('the same uploader, patient and SOP Instance UID again: 200, code duplicate, the stored image, nothing stored twice', async () => {
    const first = await uploadFile(t, doc.token, ct(), { caption: 'CT head', patientId: patient.user.id });
    expect(first.statusCode).toBe(201);
    const stored = first.json().data;
    const sop = stored.dicom.sopInstanceUid as string;
    expect(sop).toMatch(/^[\d.]+$/);
    await t.app.ctx.services.images.idle();
    const blobsBefore = blobCount();
    const sharesBefore = await db().selectFrom('shares').select('id').where('image_id', '=', stored.id).execute();

    const again = await uploadFile(t, doc.token, ct(), { caption: 'CT head, again', patientId: patient.user.id });
    expect(again.statusCode).toBe(200);
    const body = again.json();
    expect(body).toMatchObject({ success: true, code: UPLOAD_DUPLICATE_CODE, message: ImageMessages.duplicate });
    expect(body.data).toMatchObject({ id: stored.id, caption: 'CT head', uploadedByMe: true });
    expect(body.data.patient.id).toBe(patient.user.id);

    await t.app.ctx.services.images.idle();
    expect(await liveRowsOf(sop, doc.user.id)).toHaveLength(1);
    expect(blobCount()).toBe(blobsBefore);
    // No second patient share (and so no second code mail) for an instance not stored again.
    expect(await db().selectFrom('shares').select('id').where('created_for', '=', patient.user.id).execute()).toEqual(
      sharesBefore,
    );
    const audit = await db()
      .selectFrom('audit_logs')
      .selectAll()
      .where('action_type', '=', 'image.upload')
      .where('record_id', '=', stored.id)
      .orderBy('created_at')
      .execute();
    expect(audit.map((r) => [r.status, r.reason])).toEqual([
      ['success', expect.stringContaining('type=application/dicom')],
      ['failure', UPLOAD_DUPLICATE_CODE],
    ]);
  });

  it('is not a duplicate for another patient, for no patient, or for another uploader (201 each)', async () => {
    const sop = await firstSop();
    expect(sop).not.toBeNull();
    const forOther = await uploadFile(t, doc.token, ct(), { caption: 'CT', patientId: otherPatient.user.id });
    expect(forOther.statusCode).toBe(201);
    const forNobody = await uploadFile(t, doc.token, ct(), { caption: 'CT' });
    expect(forNobody.statusCode).toBe(201);
    const byOther = await uploadFile(t, otherDoc.token, ct(), { caption: 'CT', patientId: patient.user.id });
    expect(byOther.statusCode).toBe(201);
    expect(await liveRowsOf(sop!, doc.user.id)).toHaveLength(3);
    // …and each of those is itself recognised the next time.
    const nobodyAgain = await uploadFile(t, doc.token, ct(), { caption: 'CT' });
    expect(nobodyAgain.statusCode).toBe(200);
    expect(nobodyAgain.json().data.id).toBe(forNobody.json().data.id);
    const otherAgain = await uploadFile(t, otherDoc.token, ct(), { caption: 'CT', patientId: patient.user.id });
    expect(otherAgain.json().data.id).toBe(byOther.json().data.id);
  });

  it('the same instance sent three times at once is stored once: one 201, two 200 with that image', async () => {
    const us = fixture('dicom/us_rgb_explicit_le_8bit.dcm');
    const answers = await Promise.all([1, 2, 3].map(() => uploadFile(t, doc.token, us, { caption: 'US' })));
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses).toEqual([200, 200, 201]);
    const id = answers.find((a) => a.statusCode === 201)!.json().data.id;
    for (const a of answers) expect(a.json().data.id).toBe(id);
    expect(await liveRowsOf(answers[0]!.json().data.dicom.sopInstanceUid, doc.user.id)).toHaveLength(1);
  });

  it('a deleted image does not count: the same instance uploads again as new (201)', async () => {
    const first = await uploadFile(t, doc.token, fixture('dicom/mr_explicit_be_16bit_signed.dcm'), { caption: 'MR' });
    expect(first.statusCode).toBe(201);
    const id = first.json().data.id as string;
    expect((await t.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: doc.token })).statusCode).toBe(
      200,
    );
    const again = await uploadFile(t, doc.token, fixture('dicom/mr_explicit_be_16bit_signed.dcm'), { caption: 'MR' });
    expect(again.statusCode).toBe(201);
    expect(again.json().data.id).not.toBe(id);
  });

  it('keeps single uploads as they were: the same PNG twice is stored twice (201), a DICOMDIR alone is still 415', async () => {
    const png = fixture('other/photo_chelsea_cat.png');
    const a = await uploadFile(t, doc.token, png, { caption: 'Cat' });
    const b = await uploadFile(t, doc.token, png, { caption: 'Cat' });
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().data.id).not.toBe(b.json().data.id);
    const dicomdir = await uploadFile(t, doc.token, fixture('dicom/dicomdir_explicit_le.dcm'));
    expect(dicomdir.statusCode).toBe(415);
    expect(dicomdir.json().message).toBe(DicomMessages.dicomdir);
  });
});

/** The SOP Instance UID of the CT fixture as the server read it at the first upload. */
async function firstSop(): Promise<string | null> {
  const row = await db()
    .selectFrom('images')
    .select('dicom_sop_instance_uid')
    .where('uploader_id', '=', doc.user.id)
    .where('original_name', '=', ct().name)
    .executeTakeFirst();
  return row?.dicom_sop_instance_uid ?? null;
}

describe('one check-and-insert per instance at a time', () => {
  it('runs work for the same key one after the other (a failure does not block the next), other keys at once', async () => {
    const oneAtATime = createKeyedQueue();
    const log: string[] = [];
    const step =
      (name: string, ms: number, fail = false) =>
      async () => {
        log.push(`${name}:start`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`${name}:end`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      oneAtATime('k', step('a', 30, true)),
      oneAtATime('k', step('b', 5)),
      oneAtATime('other', step('c', 5)),
      oneAtATime(null, step('d', 1)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    // b starts only after a ended; c and d did not wait for a.
    expect(log.indexOf('b:start')).toBeGreaterThan(log.indexOf('a:end'));
    expect(log.indexOf('c:end')).toBeLessThan(log.indexOf('a:end'));
    expect(log.indexOf('d:end')).toBeLessThan(log.indexOf('a:end'));
  });
});

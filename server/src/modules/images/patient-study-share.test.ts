import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { createKeyring } from '../../crypto/envelope.ts';
import { createPasswordHasher } from '../../crypto/passwords.ts';
import { createEncryptedStore } from '../../storage/encrypted-store.ts';
import { createStorage } from '../../storage/index.ts';
import type { DicomColumns } from '../dicom/dicom-engine.ts';
import { type PatientShareInput, createPatientShares } from '../sharing/patient-share.ts';
import { newUid } from '../studies/studies.test-helpers.ts';
import { createImagesService } from './images.service.ts';
import { fixture } from './images.test-helpers.ts';
import type { OpenParts } from './upload.ts';

/*
 * An image joining the patient's study share while that share is revoked or verified (review 15
 * M4), in a fixed order: the upload pipeline reads the open study share (the port's `plan`), then
 * the revoke or verify commits (through the API), then the pipeline inserts the image and its row.
 * The pipeline is the real one, on the app's database and storage; only the DICOM check is a stub
 * that names the study, and `plan` is wrapped to run the other request at that point.
 */

let t: TestApp;
let provider: SignedIn;
let service: ReturnType<typeof createImagesService>;
/** Runs once, right after the next plan of the patient's share was made. */
let between: (() => Promise<void>) | null = null;
const dicomFile = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm');
/** What the stubbed DICOM check answers for the next file. */
let nextColumns: DicomColumns | null = null;
/** SOP Instance UIDs the stubbed check hands out, one per file, before nextColumns' own. */
const nextSops: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  provider = await newUser(t, 'healthProvider');
  const ctx = t.app.ctx;
  const patientShares = createPatientShares({
    db: ctx.database.db,
    mailer: ctx.mailer,
    settings: ctx.services.settings,
    publicUrl: 'http://medshare.test',
  });
  service = createImagesService({
    db: ctx.database.db,
    store: createEncryptedStore(createStorage(t.config), createKeyring(t.config.masterKey)),
    hasher: createPasswordHasher(t.config.argon2),
    audit: ctx.services.audit,
    settings: ctx.services.settings,
    log: ctx.log,
    sweep: { graceMinutes: 60, intervalMinutes: 60 },
    dicom: {
      // The study each file belongs to is named by the test (the bytes are one real CT file).
      inspectUpload: async () => ({
        columns: { ...nextColumns!, dicom_sop_instance_uid: nextSops.shift() ?? nextColumns!.dicom_sop_instance_uid },
        withMetadata: <T>(use: (metadata: Uint8Array) => T): T => use(new Uint8Array([1])),
        discard: () => undefined,
      }),
      thumbnail: async () => {
        throw new Error('no thumbnails here');
      },
    },
    patientShares: {
      ...patientShares,
      async plan(input: PatientShareInput) {
        const plan = await patientShares.plan(input);
        const step = between;
        between = null;
        if (step) await step();
        return plan;
      },
    },
  });
});
afterAll(async () => {
  await service?.close();
  await t?.close();
});

/** Uploads the CT file as an instance of `studyUid` for `patientId` through the pipeline; answers its image id. */
async function uploadInstance(studyUid: string, patientId: string): Promise<string> {
  return (await uploadWithOutcome(studyUid, patientId)).image.id;
}

/** The same, answering the upload's outcome (the image, and whether it was a duplicate). */
async function uploadWithOutcome(studyUid: string, patientId: string) {
  nextColumns = {
    dicom_kind: 'document',
    dicom_modality: 'CT',
    dicom_study_uid: studyUid,
    dicom_series_uid: `${studyUid}.1`,
    dicom_sop_instance_uid: newUid(),
  };
  const parts: OpenParts = async function* () {
    yield { kind: 'field', name: 'caption', value: 'Hip CT', truncated: false };
    yield { kind: 'field', name: 'patientId', value: patientId, truncated: false };
    yield {
      kind: 'file',
      fieldname: 'file',
      filename: dicomFile.name,
      mimetype: 'application/dicom',
      stream: Readable.from([dicomFile.data]),
    };
  };
  const actor = await t.app.ctx.services.auth.authenticate(provider.token, null);
  return service.upload(actor, parts, null);
}

async function shareOf(imageId: string) {
  const db = t.app.ctx.database.db;
  return db.selectFrom('shares').selectAll().where('image_id', '=', imageId).executeTakeFirstOrThrow();
}

const content = async (id: string, token: string) =>
  (await t.request({ method: 'GET', url: `/api/images/${id}/content`, token })).statusCode;

/** The provider revokes the patient's study share (through the API). */
async function revokeStudyShare(studyUid: string, sharingId: string) {
  const revoked = await t.request({
    method: 'DELETE',
    url: `/api/studies/${studyUid}/shares/${sharingId}`,
    token: provider.token,
  });
  expect(revoked.statusCode, revoked.body).toBe(200);
}

/** The patient study share the last mail to `to` names, and its code. */
async function lastShareMail(to: SignedIn) {
  const mail = await t.smtp.lastTo(to.user.email);
  return { sharingId: /Sharing id: ([0-9a-f-]{36})/.exec(mail.text)![1]!, code: codeIn(mail) };
}

describe('an image joining the patient’s study share while it changes (review 15 M4)', () => {
  it('a revoke between reading the study share and inserting the image leaves no open row: the image opens a new share instead', async () => {
    const patient = await newUser(t, 'patient');
    const studyUid = newUid();
    const first = await uploadInstance(studyUid, patient.user.id);
    await service.idle();
    const opened = await lastShareMail(patient);
    const verified = await t.request({
      method: 'POST',
      url: '/api/sharing/verify',
      payload: { sharingRequestId: opened.sharingId, verificationCode: opened.code },
      token: patient.token,
    });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(await content(first, patient.token)).toBe(200);
    const mails = t.smtp.countTo(patient.user.email);

    between = () => revokeStudyShare(studyUid, opened.sharingId);
    const second = await uploadInstance(studyUid, patient.user.id);
    expect(between).toBeNull();
    await service.idle();

    const row = await shareOf(second);
    // Not a row of the revoked share left open (verified, not revoked): a row of a new, pending one.
    expect(row.group_id).not.toBe(opened.sharingId);
    expect(row.verified_at).toBeNull();
    expect(row.revoked_at).toBeNull();
    expect(await content(second, patient.token)).toBe(404);
    expect(await content(first, patient.token)).toBe(404);
    // The new share was mailed with its own code, which opens the new image.
    expect(t.smtp.countTo(patient.user.email)).toBe(mails + 1);
    const again = await lastShareMail(patient);
    expect(again.sharingId).toBe(row.group_id);
    const ok = await t.request({
      method: 'POST',
      url: '/api/sharing/verify',
      payload: { sharingRequestId: again.sharingId, verificationCode: again.code },
      token: patient.token,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await content(second, patient.token)).toBe(200);
  });

  it('a verify between reading the study share and inserting the image opens the image too: no second code', async () => {
    const patient = await newUser(t, 'patient');
    const studyUid = newUid();
    const first = await uploadInstance(studyUid, patient.user.id);
    await service.idle();
    const opened = await lastShareMail(patient);
    between = async () => {
      const verified = await t.request({
        method: 'POST',
        url: '/api/sharing/verify',
        payload: { sharingRequestId: opened.sharingId, verificationCode: opened.code },
        token: patient.token,
      });
      expect(verified.statusCode, verified.body).toBe(200);
    };
    const second = await uploadInstance(studyUid, patient.user.id);
    expect(between).toBeNull();
    const row = await shareOf(second);
    expect(row.group_id).toBe(opened.sharingId);
    expect(row.verified_at).not.toBeNull();
    expect(await content(first, patient.token)).toBe(200);
    expect(await content(second, patient.token)).toBe(200);
  });
});

describe('a study’s uploads in one process', () => {
  it('join the study share the process remembers, and one revoked since opens a new one, mailed once', async () => {
    const patient = await newUser(t, 'patient');
    const studyUid = newUid();
    const mails = t.smtp.countTo(patient.user.email);
    const first = await uploadInstance(studyUid, patient.user.id);
    const second = await uploadInstance(studyUid, patient.user.id);
    await service.idle();
    const opened = await lastShareMail(patient);
    expect([(await shareOf(first)).group_id, (await shareOf(second)).group_id]).toEqual([
      opened.sharingId,
      opened.sharingId,
    ]);
    expect(t.smtp.countTo(patient.user.email)).toBe(mails + 1);

    await revokeStudyShare(studyUid, opened.sharingId);
    // The process still remembers the revoked share: the join fails in its statement, and the retry opens a new one.
    const third = await uploadInstance(studyUid, patient.user.id);
    const fourth = await uploadInstance(studyUid, patient.user.id);
    await service.idle();
    const row = await shareOf(third);
    expect(row.group_id).not.toBe(opened.sharingId);
    expect(row.revoked_at).toBeNull();
    expect((await shareOf(fourth)).group_id).toBe(row.group_id);
    expect(t.smtp.countTo(patient.user.email)).toBe(mails + 2);
    expect((await lastShareMail(patient)).sharingId).toBe(row.group_id);
  });

  it('side by side once the share is open: all join it without a mail; after a revoke, one opens a new share and the rest join that', async () => {
    const patient = await newUser(t, 'patient');
    const studyUid = newUid();
    const mails = t.smtp.countTo(patient.user.email);
    const groupOf = async (id: string) => (await shareOf(id)).group_id;
    await uploadInstance(studyUid, patient.user.id);
    await service.idle();
    const opened = await lastShareMail(patient);
    const joined = await Promise.all([1, 2, 3, 4].map(() => uploadInstance(studyUid, patient.user.id)));
    expect(new Set(await Promise.all(joined.map(groupOf)))).toEqual(new Set([opened.sharingId]));
    await service.idle();
    expect(t.smtp.countTo(patient.user.email)).toBe(mails + 1);

    await revokeStudyShare(studyUid, opened.sharingId);
    const after = await Promise.all([1, 2, 3, 4].map(() => uploadInstance(studyUid, patient.user.id)));
    await service.idle();
    const groups = new Set(await Promise.all(after.map(groupOf)));
    expect(groups.size).toBe(1);
    expect(groups.has(opened.sharingId)).toBe(false);
    expect(t.smtp.countTo(patient.user.email)).toBe(mails + 2);
    expect((await lastShareMail(patient)).sharingId).toBe([...groups][0]);
  });

  it('store one instance sent twice at once among others of its study once: one duplicate, the rest join the share', async () => {
    const patient = await newUser(t, 'patient');
    const studyUid = newUid();
    await uploadInstance(studyUid, patient.user.id);
    await service.idle();
    const opened = await lastShareMail(patient);
    const twice = newUid();
    nextSops.push(twice, newUid(), twice, newUid());
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => uploadWithOutcome(studyUid, patient.user.id)));
    expect(outcomes.filter((o) => o.duplicate)).toHaveLength(1);
    const stored = outcomes.filter((o) => !o.duplicate).map((o) => o.image.id);
    expect(new Set(stored).size).toBe(3);
    for (const id of stored) expect((await shareOf(id)).group_id).toBe(opened.sharingId);
    const rows = await t.app.ctx.database.db
      .selectFrom('images')
      .select('id')
      .where('dicom_sop_instance_uid', '=', twice)
      .where('deleted_at', 'is', null)
      .execute();
    expect(rows).toHaveLength(1);
  });
});

import { SharingMessages, type StudyDetail, StudyMessages, type StudySummary } from '@medshare/contracts';
import { sql } from 'kysely';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, loginAdmin, newUser } from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { bytesOf, fixture, uploadFile } from '../images/images.test-helpers.ts';
import { MAX_DEIDENTIFIED_STUDY_INSTANCES, MAX_SHARED_STUDY_INSTANCES } from './studies.service.ts';
import { type GeneratedStudy, generateStudy } from './studies.test-helpers.ts';

let t: TestApp;
let owner: SignedIn;
let stranger: SignedIn;
let admin: SignedIn;
beforeAll(async () => {
  t = await createTestApp();
  [owner, stranger, admin] = [
    await newUser(t, 'healthProvider'),
    await newUser(t, 'healthProvider'),
    await loginAdmin(t),
  ];
});
afterAll(async () => t?.close());

const get = (url: string, token?: string) => t.request({ method: 'GET', url, token });
const post = (url: string, payload: object, token?: string) => t.request({ method: 'POST', url, payload, token });
const db = () => t.app.ctx.database.db;
const wrongCode = (code: string) => (code === '000000' ? '111111' : '000000');

/** Uploads every instance of a generated study (2 series: 2 + 1 instances unless told) as `by`. */
async function uploadStudy(
  by = owner,
  series = [2, 1],
  caption = 'Chest CT March',
  extra: string[] = [],
): Promise<GeneratedStudy & { ids: string[] }> {
  const study = generateStudy(series, { patientName: 'Doe^Jane', extra });
  const ids: string[] = [];
  for (const s of study.series)
    for (const instance of s.instances) {
      const res = await uploadFile(t, by.token, instance.file, { caption });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().data.id);
    }
  await t.app.ctx.services.images.idle();
  return { ...study, ids };
}

/**
 * Holds the engine's de-identifications (the first only, or every one) until `release()`; `reached`
 * resolves once the first is held, and `restore()` puts the engine back.
 */
function holdDeidentify({ every = false } = {}) {
  const engine = t.app.ctx.dicomEngine as { deidentify: (...args: never[]) => Promise<unknown> };
  const original = engine.deidentify;
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  engine.deidentify = async (...args) => {
    if (!every) engine.deidentify = original;
    arrived();
    await released;
    return original(...args);
  };
  return {
    reached,
    release,
    restore: () => {
      engine.deidentify = original;
    },
  };
}

const studiesOf = async (token: string): Promise<StudySummary[]> => {
  const res = await get('/api/studies?limit=100', token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

/** Shares the study and returns the sharing id and the code from the one mail it sent. */
async function shareStudy(studyUid: string, to: SignedIn, extra: object = {}, token = owner.token) {
  const before = t.smtp.countTo(to.user.email);
  const res = await post(`/api/studies/${studyUid}/share`, { createdfor: to.user.id, ...extra }, token);
  expect(res.statusCode, res.body).toBe(201);
  while (t.smtp.countTo(to.user.email) === before) await new Promise((r) => setTimeout(r, 10));
  const mail = await t.smtp.lastTo(to.user.email);
  const sharingId = /Sharing id: ([0-9a-f-]{36})/.exec(mail.text)![1]!;
  expect(sharingId).toBe(res.json().data.id);
  return { sharingId, code: codeIn(mail), mail, share: res.json().data, mailsBefore: before };
}

/** The ids of the share rows of these images to `to` (what the sharer's image share list shows). */
const rowIdsOf = async (imageIds: string[], to: SignedIn) =>
  Promise.all(
    imageIds.map(async (id) => {
      const { rows } = await sql<{
        id: string;
      }>`SELECT id FROM shares WHERE image_id = ${id} AND created_for = ${to.user.id}`.execute(db());
      return rows[0]!.id;
    }),
  );

const verify = (sharingRequestId: string, verificationCode: string, token: string) =>
  post('/api/sharing/verify', { sharingRequestId, verificationCode }, token);
const contentStatuses = async (ids: string[], token: string) =>
  Promise.all(ids.map(async (id) => (await get(`/api/images/${id}/content`, token)).statusCode));

describe('studies in the lists', () => {
  it('shows the instances of a study as one card to its uploader and to the admin, with counts, modality, description and a thumbnail; nobody else sees it', async () => {
    const study = await uploadStudy();
    const mine = (await studiesOf(owner.token)).filter((s) => s.studyUid === study.studyUid);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      caption: 'Chest CT March',
      modalities: ['CT'],
      description: 'CT CHEST WITH CONTRAST',
      seriesCount: 2,
      instanceCount: 3,
      accessState: 'owner',
      isShared: false,
      sharingId: null,
      sharedBy: { id: owner.user.id },
    });
    expect(mine[0]!.thumbnailUrl).toMatch(/^\/api\/images\/[0-9a-f-]{36}\/thumbnail$/);
    expect((await get(mine[0]!.thumbnailUrl!, owner.token)).statusCode).toBe(200);

    const forAdmin = (await studiesOf(admin.token)).filter((s) => s.studyUid === study.studyUid);
    expect(forAdmin).toMatchObject([{ instanceCount: 3, accessState: 'owner', isShared: true }]);

    const res = await get('/api/studies?limit=100', stranger.token);
    expect(res.body).not.toContain(study.studyUid);
    for (const id of study.ids) expect(res.body).not.toContain(id);
  });

  it('with kind=files leaves the instances of a study out of the image lists; the default answer still lists them', async () => {
    const study = await uploadStudy();
    const photo = await uploadFile(t, owner.token, fixture('other/photo_hopper_portrait.jpg'), { caption: 'Photo' });
    const ids = async (query: string) =>
      ((await get(`/api/upload/my-images?limit=100${query}`, owner.token)).json().data as Array<{ id: string }>).map(
        (i) => i.id,
      );
    const all = await ids('');
    expect(all).toEqual(expect.arrayContaining([...study.ids, photo.json().data.id]));
    const files = await ids('&kind=files');
    expect(files).toContain(photo.json().data.id);
    for (const id of study.ids) expect(files).not.toContain(id);
    const adminFiles = (await get('/api/upload/images?limit=100&kind=files', admin.token)).body;
    for (const id of study.ids) expect(adminFiles).not.toContain(id);
    expect((await get('/api/upload/my-images?kind=studies', owner.token)).statusCode).toBe(400);
  });

  it('opens the study page with its series by Series Number and instances by Instance Number; 404 for anyone else, 400 for a malformed UID', async () => {
    const study = await uploadStudy(owner, [1, 3]);
    const res = await get(`/api/studies/${study.studyUid}`, owner.token);
    expect(res.statusCode, res.body).toBe(200);
    const detail: StudyDetail = res.json().data;
    expect(detail).toMatchObject({ studyUid: study.studyUid, seriesCount: 2, instanceCount: 4 });
    expect(detail.series.map((s) => [s.number, s.seriesUid, s.description, s.instanceCount])).toEqual([
      [1, study.series[0]!.uid, 'Series 1 description', 1],
      [2, study.series[1]!.uid, 'Series 2 description', 3],
    ]);
    // Uploaded in reverse order, listed by Instance Number.
    expect(detail.series[1]!.instances.map((i) => i.instanceNumber)).toEqual([1, 2, 3]);
    expect(detail.series[1]!.instances.map((i) => i.sopInstanceUid)).toEqual(
      [...study.series[1]!.instances].reverse().map((i) => i.sop),
    );
    expect(detail.series[1]!.thumbnailUrl).toMatch(/\/thumbnail$/);
    expect((await get(`/api/studies/${study.studyUid}`, stranger.token)).statusCode).toBe(404);
    expect((await get(`/api/studies/${study.studyUid}`, admin.token)).statusCode).toBe(200);
    expect((await get('/api/studies/not-a-uid', owner.token)).statusCode).toBe(400);
    // Audited, with counts only.
    const { rows } = await sql<{ reason: string; status: string }>`SELECT reason, status FROM audit_logs
      WHERE action_type = 'study.read' AND user_id = ${owner.user.id} ORDER BY id DESC LIMIT 1`.execute(db());
    expect(rows[0]).toEqual({ reason: 'series=2 instances=4', status: 'success' });
  });
});

describe('sharing a whole study', () => {
  it('mails one sharing id and one code; until it is entered the card shows counts but no UID, description or thumbnail, and no instance opens', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const { sharingId, mail, share, mailsBefore } = await shareStudy(study.studyUid, patient);
    expect(share).toMatchObject({ studyUid: study.studyUid, state: 'pending', seriesCount: 2, instanceCount: 3 });
    // One mail for the whole study.
    await new Promise((r) => setTimeout(r, 100));
    expect(t.smtp.countTo(patient.user.email)).toBe(mailsBefore + 1);
    expect(mail.subject).toContain('“Chest CT March”');
    expect(mail.text).toContain('Contents: 2 series, 3 images');
    expect(mail.text).toContain(`Shared by: Test ${owner.user.email.split('@')[0]}`);
    expect(mail.text).toMatch(/Share ends: .+\(Asia\/Karachi\)/);
    expect(mail.text).toContain(`/view-images?verify=${sharingId}`);
    // Never what only the code opens: the Study Description, UIDs, the DICOM patient name.
    for (const part of [mail.subject, mail.text, mail.html])
      for (const secret of ['CT CHEST WITH CONTRAST', study.studyUid, 'Doe', 'Jane'])
        expect(part).not.toContain(secret);

    const res = await get('/api/studies?limit=100', patient.token);
    expect(res.body).not.toContain(study.studyUid);
    expect(res.json().data).toEqual([
      expect.objectContaining({
        studyUid: null,
        description: null,
        thumbnailUrl: null,
        caption: 'Chest CT March',
        modalities: ['CT'],
        seriesCount: 2,
        instanceCount: 3,
        accessState: 'pending',
        isShared: true,
        sharingId,
        sharedBy: expect.objectContaining({ id: owner.user.id }),
      }),
    ]);
    expect(await contentStatuses(study.ids, patient.token)).toEqual([404, 404, 404]);
    expect((await get(`/api/studies/${study.studyUid}`, patient.token)).statusCode).toBe(404);
  });

  it('unlocks every instance with the one code: content, the study page and DICOMweb', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const { sharingId, code } = await shareStudy(study.studyUid, patient);
    const res = await verify(sharingId, code, patient.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ sharingId, studyUid: study.studyUid, instanceCount: 3 });
    expect(res.json().message).toBe('Study verified successfully');
    expect(study.ids).toContain(res.json().data.imageId);
    expect(await contentStatuses(study.ids, patient.token)).toEqual([200, 200, 200]);
    const [card] = await studiesOf(patient.token);
    expect(card).toMatchObject({
      studyUid: study.studyUid,
      accessState: 'verified',
      description: 'CT CHEST WITH CONTRAST',
    });
    expect(card!.thumbnailUrl).toMatch(/\/thumbnail$/);
    const page = await get(`/api/studies/${study.studyUid}`, patient.token);
    expect(page.statusCode).toBe(200);
    expect(page.json().data).toMatchObject({ accessState: 'verified', sharingId, instanceCount: 3, seriesCount: 2 });
    const qido = await get(`/api/dicomweb/studies/${study.studyUid}/instances`, patient.token);
    expect(qido.statusCode).toBe(200);
    expect(qido.json()).toHaveLength(3);
  });

  it('lets only the recipient use the code: anyone else gets 404 even with the right code; the image list names the study share, and an image row’s own id answers for it too', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const { sharingId, code } = await shareStudy(study.studyUid, patient);
    expect((await verify(sharingId, code, stranger.token)).statusCode).toBe(404);
    expect((await verify(sharingId, code, owner.token)).statusCode).toBe(404);
    // The image list (unchanged default) names each instance's study share: the id the mail gave.
    const listed = (await get('/api/upload/shared-images?limit=100', patient.token)).json().data as Array<{
      id: string;
      sharingId: string;
    }>;
    expect(study.ids.map((id) => listed.find((i) => i.id === id)?.sharingId)).toEqual([
      sharingId,
      sharingId,
      sharingId,
    ]);
    const rows = await rowIdsOf(study.ids, patient);
    expect(rows).not.toContain(sharingId);
    expect((await verify(rows[0]!, code, patient.token)).json().data).toMatchObject({ sharingId, instanceCount: 3 });
    expect(await contentStatuses(study.ids, patient.token)).toEqual([200, 200, 200]);
  });

  it('locks the whole study share after five wrong codes, counted on the study (not per image); the right code then stays 429', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const { sharingId, code } = await shareStudy(study.studyUid, patient);
    const rowIds = await rowIdsOf(study.ids, patient);
    // Tries through the study's id and through its image rows all count against the one budget.
    const statuses = [];
    for (const id of [sharingId, rowIds[0]!, rowIds[1]!, rowIds[2]!, sharingId])
      statuses.push((await verify(id, wrongCode(code), patient.token)).statusCode);
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    const right = await verify(sharingId, code, patient.token);
    expect(right.statusCode).toBe(429);
    expect(right.json().message).toBe(SharingMessages.locked);
    expect((await verify(rowIds[2]!, code, patient.token)).statusCode).toBe(429);
    expect(await contentStatuses(study.ids, patient.token)).toEqual([404, 404, 404]);
    expect((await studiesOf(patient.token))[0]).toMatchObject({ accessState: 'locked', studyUid: null });
  });

  it('cuts every instance at once when the study share is revoked, and then allows a fresh study share', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const { sharingId, code } = await shareStudy(study.studyUid, patient);
    expect((await verify(sharingId, code, patient.token)).statusCode).toBe(200);
    expect(await contentStatuses(study.ids, patient.token)).toEqual([200, 200, 200]);
    // The recipient may not revoke (403), a stranger does not know it (404).
    const url = `/api/studies/${study.studyUid}/shares/${sharingId}`;
    expect((await t.request({ method: 'DELETE', url, token: patient.token })).statusCode).toBe(403);
    expect((await t.request({ method: 'DELETE', url, token: stranger.token })).statusCode).toBe(404);
    const revoked = await t.request({ method: 'DELETE', url, token: owner.token });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().data).toMatchObject({ id: sharingId, state: 'revoked' });
    // A second revoke answers the same and is not recorded again.
    const twice = await t.request({ method: 'DELETE', url, token: owner.token });
    expect(twice.statusCode, twice.body).toBe(200);
    expect(twice.json().data).toMatchObject({ id: sharingId, state: 'revoked' });
    const revokeRows = await db()
      .selectFrom('audit_logs')
      .select('id')
      .where('action_type', '=', 'share.revoke')
      .where('record_id', '=', sharingId)
      .execute();
    expect(revokeRows).toHaveLength(1);
    expect(await contentStatuses(study.ids, patient.token)).toEqual([404, 404, 404]);
    expect((await studiesOf(patient.token))[0]).toMatchObject({ accessState: 'revoked', studyUid: null });
    expect((await verify(sharingId, code, patient.token)).statusCode).toBe(404);
    // The dead share is replaced by a new one, with its own code.
    const again = await shareStudy(study.studyUid, patient);
    expect((await verify(again.sharingId, again.code, patient.token)).statusCode).toBe(200);
    expect(await contentStatuses(study.ids, patient.token)).toEqual([200, 200, 200]);
  });

  it('lists a study’s shares for its uploader and the admin only, never with a code (its recipient 403, a stranger 404)', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const { sharingId } = await shareStudy(study.studyUid, patient);
    const url = `/api/studies/${study.studyUid}/shares`;
    const mine = await get(url, owner.token);
    expect(mine.statusCode).toBe(200);
    expect(mine.json().data).toEqual([
      expect.objectContaining({ id: sharingId, recipient: expect.objectContaining({ id: patient.user.id }) }),
    ]);
    expect(mine.body).not.toMatch(/code/i);
    expect((await get(url, admin.token)).json().data).toHaveLength(1);
    expect((await get(url, stranger.token)).statusCode).toBe(404);
    // The recipient knows the study (403), as for an image's shares.
    expect((await get(url, patient.token)).statusCode).toBe(403);
  });

  it('refuses the whole study (409, nothing stored, no mail) when the recipient already has a live share of one of its images', async () => {
    const colleague = await newUser(t, 'healthProvider');
    const study = await uploadStudy();
    const single = await post(
      '/api/sharing/request',
      { imagemetadataId: study.ids[1], createdfor: colleague.user.id },
      owner.token,
    );
    expect(single.statusCode).toBe(201);
    await t.smtp.lastTo(colleague.user.email);
    const mails = t.smtp.countTo(colleague.user.email);
    const groupsBefore = await sql<{ n: number }>`SELECT count(*)::int AS n FROM share_groups`.execute(db());
    const res = await post(`/api/studies/${study.studyUid}/share`, { createdfor: colleague.user.id }, owner.token);
    expect(res.statusCode).toBe(409);
    const groupsAfter = await sql<{ n: number }>`SELECT count(*)::int AS n FROM share_groups`.execute(db());
    expect(groupsAfter.rows[0]!.n).toBe(groupsBefore.rows[0]!.n);
    const rows = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM shares WHERE created_for = ${colleague.user.id}`.execute(db());
    expect(rows.rows[0]!.n).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.smtp.countTo(colleague.user.email)).toBe(mails);
  });

  it('lets only the uploader or an admin share a study: a recipient gets 403, a stranger 404, a patient 403', async () => {
    const colleague = await newUser(t, 'healthProvider');
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const { sharingId, code } = await shareStudy(study.studyUid, colleague);
    expect((await verify(sharingId, code, colleague.token)).statusCode).toBe(200);
    const reshare = (token: string) =>
      post(`/api/studies/${study.studyUid}/share`, { createdfor: patient.user.id }, token);
    expect((await reshare(colleague.token)).statusCode).toBe(403);
    expect((await reshare(stranger.token)).statusCode).toBe(404);
    expect((await reshare(patient.token)).statusCode).toBe(403);
    expect((await reshare(admin.token)).statusCode).toBe(201);
    expect(
      (await post(`/api/studies/${study.studyUid}/share`, { createdfor: owner.user.id }, owner.token)).statusCode,
    ).toBe(409);
  });

  it('audits the study share’s creation, a wrong code, the verification and the revocation with ids and counts only', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const { sharingId, code } = await shareStudy(study.studyUid, patient);
    await verify(sharingId, wrongCode(code), patient.token);
    await verify(sharingId, code, patient.token);
    await t.request({
      method: 'DELETE',
      url: `/api/studies/${study.studyUid}/shares/${sharingId}`,
      token: owner.token,
    });
    const { rows } = await sql<{ action_type: string; status: string; reason: string; table_name: string }>`
      SELECT action_type, status, reason, table_name FROM audit_logs WHERE record_id = ${sharingId} ORDER BY id`.execute(
      db(),
    );
    expect(rows).toEqual([
      {
        action_type: 'share.create',
        status: 'success',
        table_name: 'share_groups',
        reason: 'study share images=3 series=2 expires=24h',
      },
      { action_type: 'share.verify', status: 'failure', table_name: 'share_groups', reason: 'wrong code' },
      { action_type: 'share.verify', status: 'success', table_name: 'share_groups', reason: 'study share instances=3' },
      { action_type: 'share.revoke', status: 'success', table_name: 'share_groups', reason: 'study share' },
    ]);
  });
});

/** dcmdump's text of stored bytes. */
function dump(bytes: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'medshare-dump-'));
  try {
    writeFileSync(join(dir, 'x.dcm'), bytes);
    return execFileSync('dcmdump', ['-M', join(dir, 'x.dcm')], { encoding: 'latin1' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const uidIn = (text: string, tag: string) => new RegExp(`\\(${tag}\\) UI \\[([0-9.]+)\\]`, 'i').exec(text)?.[1];

describe('the patient’s own share of a study uploaded for them', () => {
  it('opens with one code: the first image mails one study share, the others join it without a mail, and images uploaded after the code was entered open at once', async () => {
    const patient = await newUser(t, 'patient');
    const mailsBefore = t.smtp.countTo(patient.user.email);
    const study = generateStudy([2, 2]);
    const files = study.series.flatMap((s) => s.instances.map((i) => i.file));
    const upload = (file: (typeof files)[number]) =>
      uploadFile(t, owner.token, file, { caption: 'Knee MR', patientId: patient.user.id });
    // Three at once, as a study import sends them; the fourth after the patient entered the code.
    const first = await Promise.all(files.slice(0, 3).map(upload));
    expect(first.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    await t.app.ctx.services.images.idle();
    expect(t.smtp.countTo(patient.user.email)).toBe(mailsBefore + 1);
    const mail = await t.smtp.lastTo(patient.user.email);
    expect(mail.text).toContain('Contents: Every image of this study uploaded for you');
    expect(mail.text).toContain('Share ends: Does not end (your own study)');
    const sharingId = /Sharing id: ([0-9a-f-]{36})/.exec(mail.text)![1]!;
    const cards = await studiesOf(patient.token);
    expect(cards).toEqual([
      expect.objectContaining({ sharingId, accessState: 'pending', instanceCount: 3, expiresAt: null }),
    ]);
    const ids = first.map((r) => r.json().data.id as string);
    expect(await contentStatuses(ids, patient.token)).toEqual([404, 404, 404]);
    expect((await verify(sharingId, codeIn(mail), patient.token)).statusCode).toBe(200);
    expect(await contentStatuses(ids, patient.token)).toEqual([200, 200, 200]);

    const late = await upload(files[3]!);
    expect(late.statusCode).toBe(201);
    await t.app.ctx.services.images.idle();
    expect(t.smtp.countTo(patient.user.email)).toBe(mailsBefore + 1);
    expect(await contentStatuses([late.json().data.id], patient.token)).toEqual([200]);
    expect((await studiesOf(patient.token))[0]).toMatchObject({ sharingId, accessState: 'verified', instanceCount: 4 });
    // The uploader sees it among the study's shares.
    const shares = (await get(`/api/studies/${study.studyUid}/shares`, owner.token)).json().data;
    expect(shares).toEqual([
      expect.objectContaining({ id: sharingId, isPatientShare: true, instanceCount: 4, state: 'verified' }),
    ]);
  });

  it('keeps one mailed code per image for single files and DICOM without a study, as before', async () => {
    const patient = await newUser(t, 'patient');
    const before = t.smtp.countTo(patient.user.email);
    for (const name of ['other/photo_hopper_portrait.jpg', 'other/minimal_document_1page.pdf'])
      expect(
        (await uploadFile(t, owner.token, fixture(name), { caption: name, patientId: patient.user.id })).statusCode,
      ).toBe(201);
    await t.app.ctx.services.images.idle();
    expect(t.smtp.countTo(patient.user.email)).toBe(before + 2);
    expect(await studiesOf(patient.token)).toEqual([]);
  });
});

describe('a de-identified study share', () => {
  it('shares fresh copies whose Study and Series UIDs agree across the copy, differ from the source and from another share of the same study', async () => {
    const patient = await newUser(t, 'patient');
    const other = await newUser(t, 'patient');
    const study = await uploadStudy();
    const { sharingId, code, mail } = await shareStudy(study.studyUid, patient, { deidentify: true });
    expect(mail.subject).toContain('“De-identified CT study”');
    for (const part of [mail.subject, mail.text, mail.html])
      for (const secret of ['Chest CT March', 'CT CHEST WITH CONTRAST', study.studyUid, 'Doe'])
        expect(part).not.toContain(secret);
    expect((await verify(sharingId, code, patient.token)).statusCode).toBe(200);
    // The source stays closed to the recipient: only the copies were shared.
    expect(await contentStatuses(study.ids, patient.token)).toEqual([404, 404, 404]);
    const [card] = await studiesOf(patient.token);
    expect(card).toMatchObject({
      deidentified: true,
      accessState: 'verified',
      seriesCount: 2,
      instanceCount: 3,
      patient: null,
    });
    const copyUid = card!.studyUid!;
    expect(copyUid).toMatch(/^2\.25\.\d+$/);
    expect(copyUid).not.toBe(study.studyUid);

    const detail: StudyDetail = (await get(`/api/studies/${copyUid}`, patient.token)).json().data;
    const sourceSeries = study.series.map((s) => s.uid);
    const sourceSops = study.series.flatMap((s) => s.instances.map((i) => i.sop));
    expect(detail.series.map((s) => s.instanceCount)).toEqual([2, 1]);
    for (const series of detail.series) {
      expect(sourceSeries).not.toContain(series.seriesUid);
      for (const instance of series.instances) {
        expect(sourceSops).not.toContain(instance.sopInstanceUid);
        // Inside each copy's bytes: the same study UID, its series' UID, its own SOP UID; no patient name.
        const text = dump(bytesOf(await get(`/api/images/${instance.imageId}/content`, patient.token)));
        expect(uidIn(text, '0020,000d')).toBe(copyUid);
        expect(uidIn(text, '0020,000e')).toBe(series.seriesUid);
        expect(uidIn(text, '0008,0018')).toBe(instance.sopInstanceUid);
        expect(uidIn(text, '0002,0003')).toBe(instance.sopInstanceUid);
        expect(text).toMatch(/\(0012,0062\) CS \[YES\]/);
        expect(text).not.toContain('Doe^Jane');
        expect(text).not.toContain(study.studyUid);
      }
    }
    // Another de-identified share of the same study: other copies, other UIDs (unlinkable).
    const second = await shareStudy(study.studyUid, other, { deidentify: true });
    expect((await verify(second.sharingId, second.code, other.token)).statusCode).toBe(200);
    const [otherCard] = await studiesOf(other.token);
    expect(otherCard!.studyUid).not.toBe(copyUid);
    expect(otherCard!.studyUid).not.toBe(study.studyUid);
  });

  it("ends with its source: deleting the study's images closes the copies to the recipient (study, its images, DICOMweb)", async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy(owner, [2], 'Deleted after sharing');
    const { sharingId, code } = await shareStudy(study.studyUid, patient, { deidentify: true });
    expect((await verify(sharingId, code, patient.token)).statusCode).toBe(200);
    const [card] = await studiesOf(patient.token);
    const copyUid = card!.studyUid!;
    const copyIds = (await get(`/api/studies/${copyUid}`, patient.token))
      .json()
      .data.series.flatMap((s: { instances: { imageId: string }[] }) => s.instances.map((i) => i.imageId));
    expect(copyIds).toHaveLength(2);
    for (const id of study.ids)
      expect(
        (await t.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: owner.token })).statusCode,
      ).toBe(200);
    expect((await get(`/api/studies/${copyUid}`, patient.token)).statusCode).toBe(404);
    expect((await get(`/api/dicomweb/studies/${copyUid}`, patient.token)).statusCode).toBe(404);
    expect(await contentStatuses(copyIds, patient.token)).toEqual([404, 404]);
    expect(await studiesOf(patient.token)).toEqual([]);
  });

  it('refuses (404) a share whose source image was deleted while its copies were made, leaving no copy behind', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy(owner, [2], 'Deleted while copied');
    // The share reads its sources, then de-identifies them one by one: the first is deleted meanwhile.
    const { reached, release } = holdDeidentify();
    const sharing = post(
      `/api/studies/${study.studyUid}/share`,
      { createdfor: patient.user.id, deidentify: true },
      owner.token,
    );
    await reached;
    expect(
      (await t.request({ method: 'DELETE', url: `/api/upload/image/${study.ids[0]}`, token: owner.token })).statusCode,
    ).toBe(200);
    release();
    expect((await sharing).statusCode).toBe(404);
    const copies = await sql<{ n: number }>`SELECT count(*)::int AS n FROM images
      WHERE source_image_id IN (${sql.join(study.ids)}) AND deleted_at IS NULL`.execute(db());
    expect(copies.rows[0]!.n).toBe(0);
    const shares = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM share_groups WHERE created_for = ${patient.user.id}`.execute(db());
    expect(shares.rows[0]!.n).toBe(0);
  });

  it('refuses (404), not 500, a share whose sources are deleted, blobs and all, before their copies read them', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy(owner, [2], 'Deleted before read');
    // Every de-identification waits until the sources are gone: each then reads a blob that is not there.
    const { reached, release, restore } = holdDeidentify({ every: true });
    try {
      const sharing = post(
        `/api/studies/${study.studyUid}/share`,
        { createdfor: patient.user.id, deidentify: true },
        owner.token,
      );
      await reached;
      for (const id of study.ids)
        expect(
          (await t.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: owner.token })).statusCode,
        ).toBe(200);
      await t.app.ctx.services.images.idle();
      for (const id of study.ids) rmSync(join(t.dataDir, 'blobs', id.slice(0, 2), id), { force: true });
      release();
      const res = await sharing;
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json().message).toBe('Image not found');
    } finally {
      restore();
    }
  });

  it('refuses (409) a study with an image flagged with burned-in annotation, storing no copy, no share and sending no mail', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy(owner, [2], 'Flagged', ['(0028,0301)=YES']);
    const copies = () =>
      sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM images WHERE source_image_id IN (${sql.join(study.ids)})`.execute(db());
    const res = await post(
      `/api/studies/${study.studyUid}/share`,
      { createdfor: patient.user.id, deidentify: true },
      owner.token,
    );
    expect(res.statusCode).toBe(409);
    expect((await copies()).rows[0]!.n).toBe(0);
    expect(
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM shares WHERE created_for = ${patient.user.id}`.execute(
          db(),
        )
      ).rows[0]!.n,
    ).toBe(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.smtp.countTo(patient.user.email)).toBe(1);
  });
});

/** The same file with one attribute changed by dcmodify (same UIDs, other bytes): another uploader's copy. */
function modified(file: GeneratedStudy['series'][number]['instances'][number]['file'], change: string) {
  const dir = mkdtempSync(join(tmpdir(), 'medshare-copy-'));
  try {
    const path = join(dir, file.name);
    writeFileSync(path, file.data);
    execFileSync('dcmodify', ['-nb', '-i', change, path]);
    return { ...file, data: readFileSync(path) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Uploads every instance of `study` for `patient` as `by` and answers the patient study share's id and code. */
async function uploadForPatient(study: GeneratedStudy, by: SignedIn, patient: SignedIn, change?: string) {
  const ids: string[] = [];
  for (const s of study.series)
    for (const instance of s.instances) {
      const file = change ? modified(instance.file, change) : instance.file;
      const res = await uploadFile(t, by.token, file, { caption: 'Shoulder CT', patientId: patient.user.id });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().data.id);
    }
  await t.app.ctx.services.images.idle();
  const mail = await t.smtp.lastTo(patient.user.email);
  return { ids, sharingId: /Sharing id: ([0-9a-f-]{36})/.exec(mail.text)![1]!, code: codeIn(mail) };
}

const count = async (query: ReturnType<typeof sql<{ n: number }>>) => (await query.execute(db())).rows[0]!.n;

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

describe('copies of one instance by several uploaders or for several patients (review 15 M1, L1)', () => {
  it('never hides one uploader’s objects behind another’s with the same UIDs: the patient, the admin and QIDO list each copy; each uploader sees their own', async () => {
    const patient = await newUser(t, 'patient');
    const other = await newUser(t, 'healthProvider');
    const study = generateStudy([2, 1]);
    const a = await uploadForPatient(study, owner, patient);
    // Provider B stores objects under A's Study, Series and SOP Instance UIDs for the same patient.
    const b = await uploadForPatient(study, other, patient, '(0008,103E)=Not what A sent');
    expect(b.sharingId).not.toBe(a.sharingId);
    expect((await verify(a.sharingId, a.code, patient.token)).statusCode).toBe(200);
    expect((await verify(b.sharingId, b.code, patient.token)).statusCode).toBe(200);

    const page = async (token: string) => {
      const res = await get(`/api/studies/${study.studyUid}`, token);
      expect(res.statusCode, res.body).toBe(200);
      const detail: StudyDetail = res.json().data;
      return { detail, ids: detail.series.flatMap((s) => s.instances.map((i) => i.imageId)).sort() };
    };
    // The patient and the admin see both uploaders' objects, each as an instance of its own.
    for (const token of [patient.token, admin.token]) {
      const { detail, ids } = await page(token);
      expect(ids).toEqual([...a.ids, ...b.ids].sort());
      expect(detail.instanceCount).toBe(6);
    }
    // Each uploader sees their own objects only, never the other's in their place.
    expect((await page(owner.token)).ids).toEqual([...a.ids].sort());
    expect((await page(other.token)).ids).toEqual([...b.ids].sort());
    // Both study cards of the patient count their own share's images.
    const cards = (await studiesOf(patient.token)).filter((c) => c.studyUid === study.studyUid);
    expect(cards.map((c) => c.instanceCount)).toEqual([3, 3]);

    // DICOMweb: QIDO lists every copy (and counts them); a study retrieve serves both uploaders' objects.
    const qido = await get(`/api/dicomweb/studies/${study.studyUid}/instances?limit=100`, patient.token);
    expect(qido.statusCode).toBe(200);
    expect(qido.json()).toHaveLength(6);
    const studies = (await get(`/api/dicomweb/studies?StudyInstanceUID=${study.studyUid}`, admin.token)).json();
    expect(studies[0]['00201208'].Value).toEqual([6]);
    const retrieve = await t.request({
      method: 'GET',
      url: `/api/dicomweb/studies/${study.studyUid}`,
      token: patient.token,
      headers: { accept: 'multipart/related; type="application/dicom"; transfer-syntax=*' },
    });
    expect(retrieve.statusCode).toBe(200);
    const body = bytesOf(retrieve).toString('latin1');
    expect(body.split('Not what A sent').length - 1).toBe(3);
    expect(body.split('Series 1 description').length - 1).toBe(2);
    // An instance named by its UIDs: its uploader gets their own object, not the newer one.
    const sop = study.series[0]!.instances[0]!;
    const one = await t.request({
      method: 'GET',
      url: `/api/dicomweb/studies/${study.studyUid}/series/${study.series[0]!.uid}/instances/${sop.sop}`,
      token: owner.token,
      headers: { accept: 'multipart/related; type="application/dicom"; transfer-syntax=*' },
    });
    expect(one.statusCode).toBe(200);
    expect(bytesOf(one).toString('latin1')).not.toContain('Not what A sent');
  });

  it('refuses (409, nothing stored, no mail) to share as one study the images one provider stored under one Study UID for two patients', async () => {
    const [p1, p2, colleague] = [
      await newUser(t, 'patient'),
      await newUser(t, 'patient'),
      await newUser(t, 'healthProvider'),
    ];
    const study = generateStudy([2]);
    // Sent to the wrong patient first, then to the right one: the duplicate rule is per patient, so both are stored.
    await uploadForPatient(study, owner, p1);
    await uploadForPatient(study, owner, p2);
    const mails = t.smtp.countTo(colleague.user.email);
    const groups = await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM share_groups`);
    const res = await post(`/api/studies/${study.studyUid}/share`, { createdfor: colleague.user.id }, owner.token);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(StudyMessages.severalPatients);
    expect(await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM share_groups`)).toBe(groups);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.smtp.countTo(colleague.user.email)).toBe(mails);
    // The owner's card and page count both patients' copies.
    expect((await get(`/api/studies/${study.studyUid}`, owner.token)).json().data.instanceCount).toBe(4);
  });
});

describe('a large study share (review 15 M3)', () => {
  /** `n` more live rows of the owner's study, copied from one uploaded instance (each its own SOP UID, no blob). */
  async function growStudy(sourceId: string, n: number) {
    const prefix = `2.25.${Date.now()}${Math.floor(Math.random() * 1000)}.`;
    const { rows } = await sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns
      WHERE table_name = 'images' AND table_schema = current_schema() ORDER BY ordinal_position`.execute(db());
    const made: Record<string, ReturnType<typeof sql>> = {
      id: sql`gen_random_uuid()`,
      dicom_sop_instance_uid: sql`${prefix} || g`,
      storage_key: sql`${prefix} || g`,
      thumbnail_status: sql`'none'`,
      thumb_storage_key: sql`NULL`,
    };
    const columns = rows.map((r) => r.name);
    await sql`INSERT INTO images (${sql.join(columns.map((c) => sql.ref(c)))})
      SELECT ${sql.join(columns.map((c) => made[c] ?? sql.ref(`i.${c}`)))}
      FROM images i, generate_series(1, ${n}::int) g WHERE i.id = ${sourceId}`.execute(db());
  }

  it(`shares a study of more than 8 192 instances under one code (members inserted in bounded statements), and refuses one of more than ${MAX_SHARED_STUDY_INSTANCES} with a clear 413, storing nothing`, async () => {
    const colleague = await newUser(t, 'healthProvider');
    const big = await uploadStudy(owner, [1]);
    await growStudy(big.ids[0]!, 8_199);
    const { share, sharingId, code } = await shareStudy(big.studyUid, colleague);
    expect(share).toMatchObject({ instanceCount: 8_200, seriesCount: 1, state: 'pending' });
    expect(await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM shares WHERE group_id = ${sharingId}`)).toBe(
      8_200,
    );
    expect((await verify(sharingId, code, colleague.token)).json().data).toMatchObject({ instanceCount: 8_200 });

    const huge = await uploadStudy(owner, [1]);
    await growStudy(huge.ids[0]!, MAX_SHARED_STUDY_INSTANCES);
    const groups = await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM share_groups`);
    const res = await post(`/api/studies/${huge.studyUid}/share`, { createdfor: colleague.user.id }, owner.token);
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toBe(StudyMessages.tooManyInstances(MAX_SHARED_STUDY_INSTANCES, false));
    const copies = await post(
      `/api/studies/${huge.studyUid}/share`,
      { createdfor: colleague.user.id, deidentify: true },
      owner.token,
    );
    expect(copies.statusCode).toBe(413);
    expect(copies.json().message).toBe(StudyMessages.tooManyInstances(MAX_DEIDENTIFIED_STUDY_INSTANCES, true));
    expect(await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM share_groups`)).toBe(groups);
    await sql`UPDATE images SET deleted_at = now() WHERE dicom_study_uid IN (${big.studyUid}, ${huge.studyUid})`.execute(
      db(),
    );
  }, 120_000);
});

describe('de-identified study copies belong to their share (review 15 M2, (a), (b))', () => {
  const liveCopies = (ids: string[]) =>
    count(sql<{ n: number }>`SELECT count(*)::int AS n FROM images
      WHERE source_image_id IN (${sql.join(ids)}) AND deleted_at IS NULL`);

  it('leaves no copy behind when the share’s mail cannot be sent (rows, metadata, blobs), and a retry makes one set', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const blobs = blobCount();
    const groups = await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM share_groups`);
    t.smtp.setFailing(true);
    try {
      const res = await post(
        `/api/studies/${study.studyUid}/share`,
        { createdfor: patient.user.id, deidentify: true },
        owner.token,
      );
      expect(res.statusCode).toBeGreaterThanOrEqual(500);
    } finally {
      t.smtp.setFailing(false);
    }
    await t.app.ctx.services.images.idle();
    expect(await liveCopies(study.ids)).toBe(0);
    expect(
      await count(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM images WHERE source_image_id IN (${sql.join(study.ids)})`,
      ),
    ).toBe(0);
    expect(await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM share_groups`)).toBe(groups);
    expect(blobCount()).toBe(blobs);
    // The copies made were audited in the share's transaction, and their withdrawal with the share's.
    const { rows } = await sql<{ reason: string; status: string }>`SELECT reason, status FROM audit_logs
      WHERE action_type = 'share.delete' AND table_name = 'share_groups' ORDER BY id DESC LIMIT 1`.execute(db());
    expect(rows[0]).toEqual({ reason: 'study share; mail failed; copies removed=3', status: 'failure' });

    await shareStudy(study.studyUid, patient, { deidentify: true });
    expect(await liveCopies(study.ids)).toBe(3);
  });

  it('stores no copy when the share cannot be audited: the copies, the share and every audit row are one transaction', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const head = (
      await sql<{ last_id: string; last_hash: string }>`SELECT last_id, last_hash FROM audit_head`.execute(db())
    ).rows[0]!;
    await sql`DELETE FROM audit_head`.execute(db());
    try {
      const res = await post(
        `/api/studies/${study.studyUid}/share`,
        { createdfor: patient.user.id, deidentify: true },
        owner.token,
      );
      expect(res.statusCode).toBe(500);
    } finally {
      await sql`INSERT INTO audit_head (id, last_id, last_hash) VALUES (1, ${head.last_id}, ${head.last_hash})`.execute(
        db(),
      );
    }
    expect(await liveCopies(study.ids)).toBe(0);
  });

  it('are never its owner’s (or the admin’s) own study, image or QIDO result', async () => {
    const patient = await newUser(t, 'patient');
    const study = await uploadStudy();
    const { sharingId, code } = await shareStudy(study.studyUid, patient, { deidentify: true });
    expect((await verify(sharingId, code, patient.token)).statusCode).toBe(200);
    const [card] = await studiesOf(patient.token);
    const copyUid = card!.studyUid!;
    const { rows } = await sql<{ id: string }>`SELECT id FROM images WHERE copy_for_group = ${sharingId}`.execute(db());
    const copyIds = rows.map((r) => r.id);
    expect(copyIds).toHaveLength(3);

    for (const who of [owner, admin]) {
      const answers = [
        await get('/api/studies?limit=100', who.token),
        await get('/api/upload/my-images?limit=100', who.token),
        await get('/api/upload/images?limit=100', who.token),
        await get('/api/dicomweb/studies?limit=1000', who.token),
        await get(`/api/dicomweb/studies/${copyUid}/instances`, who.token),
      ];
      for (const res of answers) {
        expect(res.body).not.toContain(copyUid);
        for (const id of copyIds) expect(res.body).not.toContain(id);
      }
      expect((await get(`/api/studies/${copyUid}`, who.token)).statusCode).toBe(404);
    }
    // Its shares stay where the owner manages the study's shares.
    const shares = (await get(`/api/studies/${study.studyUid}/shares`, owner.token)).json().data;
    expect(shares).toEqual([expect.objectContaining({ id: sharingId, deidentified: true, instanceCount: 3 })]);
    // The recipient still has it all.
    expect((await get(`/api/studies/${copyUid}`, patient.token)).json().data.instanceCount).toBe(3);
    // An admin who receives such a share sees it like any recipient: one shared card, its page, QIDO.
    const toAdmin = await shareStudy(study.studyUid, admin, { deidentify: true });
    expect((await verify(toAdmin.sharingId, toAdmin.code, admin.token)).statusCode).toBe(200);
    const adminCard = (await studiesOf(admin.token)).find((c) => c.sharingId === toAdmin.sharingId);
    expect(adminCard).toMatchObject({ deidentified: true, accessState: 'verified', instanceCount: 3 });
    expect((await get(`/api/studies/${adminCard!.studyUid}`, admin.token)).json().data.instanceCount).toBe(3);
    expect((await get(`/api/dicomweb/studies/${adminCard!.studyUid}/instances`, admin.token)).json()).toHaveLength(3);
  });

  it('are not reused by a later single-image de-identified share, whose UIDs are mapped under the uploader’s scope', async () => {
    const patient = await newUser(t, 'patient');
    const colleague = await newUser(t, 'healthProvider');
    const study = await uploadStudy();
    const { sharingId } = await shareStudy(study.studyUid, patient, { deidentify: true });
    const { rows } = await sql<{ id: string }>`SELECT id FROM images WHERE copy_for_group = ${sharingId}`.execute(db());
    const copyIds = rows.map((r) => r.id);
    expect(copyIds).toHaveLength(3);
    const single = await post(
      '/api/sharing/request',
      { imagemetadataId: study.ids[0], createdfor: colleague.user.id, deidentify: true },
      owner.token,
    );
    expect(single.statusCode, single.body).toBe(201);
    expect(copyIds).not.toContain(single.json().data.imageId);
    // Listed with its source's shares, since the copy itself is listed to its recipient only.
    const sourceShares = (await get(`/api/sharing/image/${study.ids[0]}`, owner.token)).json().data;
    expect(sourceShares.map((s: { id: string }) => s.id)).toContain(single.json().data.id);
  });
});

describe('study share lists stay bounded (review 15 L4)', () => {
  it('lists at most 200 study shares of a study, newest first, filtered in the query to those the caller manages', async () => {
    const study = await uploadStudy(owner, [1]);
    const patient = await newUser(t, 'patient');
    await sql`INSERT INTO share_groups (id, study_uid, created_by, created_for, code_hash, expires_at, created_at)
      SELECT gen_random_uuid(), ${study.studyUid}, ${owner.user.id}, ${patient.user.id}, 'x', now() + interval '1 day',
        now() - g * interval '1 second'
      FROM generate_series(1, 205) g`.execute(db());
    // Another provider's study share of a study with the same UID is none of the owner's business.
    await sql`INSERT INTO share_groups (id, study_uid, created_by, created_for, code_hash, expires_at)
      VALUES (gen_random_uuid(), ${study.studyUid}, ${stranger.user.id}, ${patient.user.id}, 'x', now() + interval '1 day')`.execute(
      db(),
    );
    const res = await get(`/api/studies/${study.studyUid}/shares`, owner.token);
    expect(res.statusCode).toBe(200);
    const listed = res.json().data as Array<{ createdBy: { id: string }; createdAt: string }>;
    expect(listed).toHaveLength(200);
    expect(listed.every((s) => s.createdBy.id === owner.user.id)).toBe(true);
    expect(listed.map((s) => s.createdAt)).toEqual([...listed.map((s) => s.createdAt)].sort().reverse());
  });
});

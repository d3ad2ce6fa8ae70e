import { ExternalShareMessages, StudyMessages } from '@medshare/contracts';
import dicomParser from 'dicom-parser';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SignedIn,
  type TestApp,
  createTestApp,
  holdNextHasherCall,
  loginAdmin,
  newUser,
} from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { bytesOf, fixture, uploadFile } from '../images/images.test-helpers.ts';
import { generateStudy } from '../studies/studies.test-helpers.ts';

let t: TestApp;
let provider: SignedIn;
let patient: SignedIn;
let stranger: SignedIn;
const logLines: string[] = [];
beforeAll(async () => {
  t = await createTestApp(
    (c) => {
      c.logLevel = 'info';
    },
    new Writable({
      write(chunk, _enc, cb) {
        logLines.push(String(chunk));
        cb();
      },
    }),
  );
  provider = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient');
  stranger = await newUser(t, 'patient');
});
afterAll(async () => t?.close());

const db = () => t.app.ctx.database.db;
const IP = '203.0.113.7';
const json = (url: string, method: 'GET' | 'POST' | 'DELETE', payload?: object, token?: string) =>
  t.request({ method, url, ...(payload ? { payload } : {}), token });

/** Provider uploads for the patient; the patient enters the mailed code, so the image is theirs to see. */
async function patientImage(path = 'other/photo_hopper_portrait.jpg', caption = 'Knee scan'): Promise<string> {
  const res = await uploadFile(t, provider.token, fixture(path), { caption, patientId: patient.user.id });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.id as string;
  await t.app.ctx.services.images.idle();
  const mail = await t.smtp.lastTo(patient.user.email);
  const sharingId = /Sharing id: ([0-9a-f-]{36})/.exec(mail.text)![1]!;
  const verify = await json(
    '/api/sharing/verify',
    'POST',
    { sharingRequestId: sharingId, verificationCode: codeIn(mail) },
    patient.token,
  );
  expect(verify.statusCode, verify.body).toBe(200);
  return id;
}

let recipientCounter = 0;
/** Shares by link; returns the code (from the answer), the token (from the recipient's mail) and the share. */
async function shareByLink(imageId: string, extra: object = {}, token = patient.token) {
  recipientCounter += 1;
  const email = `second-opinion-${recipientCounter}@elsewhere.example`;
  const res = await json('/api/external-shares', 'POST', { imageId, recipientEmail: email, ...extra }, token);
  expect(res.statusCode, res.body).toBe(201);
  const mail = await t.smtp.lastTo(email);
  const link = /(http\S+\/x#[A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
  return {
    email,
    mail,
    link,
    token: link.split('#')[1]!,
    code: res.json().data.code as string,
    share: res.json().data.share,
  };
}

const linkStatus = (token: string) => json('/api/external/link', 'POST', { token });
const redeem = (token: string, code: string) =>
  t.request({ method: 'POST', url: '/api/external/session', payload: { token, code }, remoteAddress: IP });
const cookieOf = (res: { headers: Record<string, unknown> }) => {
  const header = String(res.headers['set-cookie']);
  expect(header).toMatch(/HttpOnly/);
  expect(header).toMatch(/SameSite=Strict/);
  expect(header).toMatch(/Path=\/api\/external;/);
  return header.split(';')[0]!;
};
const asHolder = (url: string, cookie: string) =>
  t.request({ method: 'GET', url, headers: { cookie }, remoteAddress: IP });
const wrong = (code: string) => (code === '000000' ? '111111' : '000000');

describe('sharing by link', () => {
  it('mails a link without the code, opens the image only with link and code, and audits every view with the recipient and address', async () => {
    const id = await patientImage();
    const { email, mail, link, token, code, share } = await shareByLink(id);
    expect(code).toMatch(/^\d{6}$/);
    expect(share).toMatchObject({ kind: 'image', imageId: id, state: 'active', recipientEmail: email, views: 0 });
    expect(link).toMatch(/^http:\/\/medshare\.test\/x#/);
    // The mail: no code, no caption, no patient name.
    for (const part of [mail.subject, mail.text, mail.html]) {
      expect(part).not.toContain(code);
      expect(part).not.toContain('Knee scan');
      expect(part).not.toContain(patient.user.email);
    }
    expect(mail.text).toContain('Access ends');
    // The token is stored only as its hash.
    const row = await db()
      .selectFrom('external_shares')
      .selectAll()
      .where('id', '=', share.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).not.toContain(token);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);

    // The link alone: its state and end, nothing else.
    const status = await linkStatus(token);
    expect(status.json().data).toEqual({ state: 'active', expiresAt: share.expiresAt });
    expect((await asHolder('/api/external/view', '')).statusCode).toBe(401);
    expect((await asHolder(`/api/external/images/${id}/content`, '')).statusCode).toBe(401);

    const session = await redeem(token, code);
    expect(session.statusCode, session.body).toBe(200);
    expect(session.headers['cache-control']).toContain('no-store');
    expect(session.headers['referrer-policy']).toBe('no-referrer');
    const cookie = cookieOf(session);
    expect(session.json().data).toMatchObject({ kind: 'image', title: 'Knee scan', viewOnly: false, images: [{ id }] });

    const content = await asHolder(`/api/external/images/${id}/content`, cookie);
    expect(content.statusCode).toBe(200);
    expect(content.headers['content-disposition']).toMatch(/^inline/);
    expect(content.headers['cache-control']).toBe('private, no-store');
    expect(bytesOf(content).equals(fixture('other/photo_hopper_portrait.jpg').data)).toBe(true);
    expect((await asHolder(`/api/external/images/${id}/download`, cookie)).headers['content-disposition']).toMatch(
      /^attachment/,
    );
    expect((await asHolder('/api/external/view', cookie)).statusCode).toBe(200);

    const rows = await db()
      .selectFrom('audit_logs')
      .selectAll()
      .where('action_type', 'in', ['external_share.view', 'external_share.redeem', 'external_share.list.read'])
      .where('reason', 'like', `%${share.id}%`)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.action_type)).toEqual([
      'external_share.redeem',
      'external_share.view',
      'external_share.view',
      'external_share.list.read',
    ]);
    for (const r of rows) {
      expect(r.reason).toContain(`recipient=${email}`);
      expect(r.ip_address).toBe(IP);
      expect(r.user_id).toBeNull();
    }
    expect(rows.filter((r) => r.action_type === 'external_share.view').map((r) => r.record_id)).toEqual([id, id]);

    const list = (await json('/api/external-shares', 'GET', undefined, patient.token)).json().data;
    expect(list.maxHours).toBe(72);
    expect(list.items.find((s: { id: string }) => s.id === share.id)).toMatchObject({ views: 1, state: 'active' });
    expect(JSON.stringify(list)).not.toContain(code);
    expect(JSON.stringify(list)).not.toContain(token);
  });

  it('reaches nothing but its own share: other images, other shares and the signed-in API refuse the credential', async () => {
    const mine = await patientImage();
    const other = await patientImage();
    const { token, code } = await shareByLink(mine);
    const cookie = cookieOf(await redeem(token, code));
    expect((await asHolder(`/api/external/images/${other}/content`, cookie)).statusCode).toBe(404);
    expect((await asHolder(`/api/external/images/${other}/thumbnail`, cookie)).statusCode).toBe(404);
    for (const url of [
      `/api/images/${mine}/content`,
      '/api/users/profile',
      '/api/upload/shared-images',
      '/api/studies',
    ])
      expect((await asHolder(url, cookie)).statusCode, url).toBe(401);
    // The credential as a bearer token is no session either.
    const credential = cookie.split('=')[1]!;
    expect((await t.request({ method: 'GET', url: '/api/users/profile', token: credential })).statusCode).toBe(401);
  });

  it('only the patient who sees the image or its uploader may share it by link', async () => {
    const id = await patientImage();
    const body = { imageId: id, recipientEmail: 'x@elsewhere.example' };
    expect((await json('/api/external-shares', 'POST', body, stranger.token)).statusCode).toBe(404);
    expect((await json('/api/external-shares', 'POST', body, provider.token)).statusCode).toBe(201);
    const colleague = await newUser(t, 'healthProvider');
    expect((await json('/api/external-shares', 'POST', body, colleague.token)).statusCode).toBe(404);
  });

  it('bounds the expiry by the setting (72 h by default, 168 at most)', async () => {
    const id = await patientImage();
    const post = (extra: object) =>
      json(
        '/api/external-shares',
        'POST',
        { imageId: id, recipientEmail: 'bound@elsewhere.example', ...extra },
        patient.token,
      );
    const dflt = await post({});
    const hours = (Date.parse(dflt.json().data.share.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(71.9);
    expect(hours).toBeLessThanOrEqual(72);
    expect((await post({ expiresInHours: 73 })).statusCode).toBe(400);
    expect((await post({ expiresInHours: 169 })).statusCode).toBe(400);
  });

  it('a view-only share refuses the download and serves the file inline', async () => {
    const id = await patientImage();
    const { token, code } = await shareByLink(id, { viewOnly: true });
    const cookie = cookieOf(await redeem(token, code));
    const download = await asHolder(`/api/external/images/${id}/download`, cookie);
    expect(download.statusCode).toBe(403);
    const content = await asHolder(`/api/external/images/${id}/content`, cookie);
    expect(content.statusCode).toBe(200);
    expect(content.headers['content-disposition']).toMatch(/^inline/);
  });
});

describe('guessing', () => {
  it('locks the link after five wrong codes; the right code then opens nothing; the sharer sees it locked and re-issues', async () => {
    const id = await patientImage();
    const { token, code, share, email } = await shareByLink(id);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await redeem(token, wrong(code))).statusCode);
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    const late = await redeem(token, code);
    expect(late.statusCode).toBe(429);
    expect(late.json().message).toBe(ExternalShareMessages.lockedLink);
    expect(late.headers['set-cookie']).toBeUndefined();
    expect((await linkStatus(token)).json().data.state).toBe('locked');
    const listed = (await json('/api/external-shares', 'GET', undefined, patient.token)).json().data.items;
    expect(listed.find((s: { id: string }) => s.id === share.id).state).toBe('locked');

    const again = await json(`/api/external-shares/${share.id}/reissue`, 'POST', undefined, patient.token);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data.share.state).toBe('active');
    const mail = await t.smtp.lastTo(email);
    const newToken = /\/x#([A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
    expect(newToken).not.toBe(token);
    // The old link is gone; the new one opens with the new code.
    expect((await redeem(token, again.json().data.code)).statusCode).toBe(404);
    expect((await redeem(newToken, again.json().data.code)).statusCode).toBe(200);
  });

  it('counts only wrong codes: the recipient may enter the right one again and again', async () => {
    const id = await patientImage();
    const { token, code } = await shareByLink(id);
    for (let i = 0; i < 4; i++) expect((await redeem(token, wrong(code))).statusCode).toBe(400);
    for (let i = 0; i < 6; i++) expect((await redeem(token, code)).statusCode).toBe(200);
    expect((await redeem(token, wrong(code))).statusCode).toBe(429);
  });

  it('counts parallel wrong codes before checking them: never more than five tries', async () => {
    const id = await patientImage();
    const { token, code } = await shareByLink(id);
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () => redeem(token, wrong(code)).then((r) => r.statusCode)),
    );
    expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(4);
    expect((await redeem(token, code)).statusCode).toBe(429);
  });

  it('answers an unknown token like a dead end, with the same work, and a malformed one with 400', async () => {
    const unknown = 'A'.repeat(43);
    expect((await redeem(unknown, '123456')).statusCode).toBe(404);
    expect((await linkStatus(unknown)).statusCode).toBe(404);
    expect((await redeem('short', '123456')).statusCode).toBe(400);
  });

  it('a re-issued share ends the credentials its old link gave', async () => {
    const id = await patientImage();
    const { token, code, share } = await shareByLink(id);
    const cookie = cookieOf(await redeem(token, code));
    expect((await asHolder('/api/external/view', cookie)).statusCode).toBe(200);
    await json(`/api/external-shares/${share.id}/reissue`, 'POST', undefined, patient.token);
    expect((await asHolder('/api/external/view', cookie)).statusCode).toBe(401);
  });

  it('a re-issue that loses to a revoke answers 409 and mails nothing: no dead link goes out', async () => {
    const id = await patientImage();
    const { share, email } = await shareByLink(id);
    const mails = t.smtp.countTo(email);
    // The revoke commits while the new code is being hashed.
    const held = holdNextHasherCall(t, 'hash');
    const reissuing = json(`/api/external-shares/${share.id}/reissue`, 'POST', undefined, patient.token);
    await held.reached;
    const revoked = await json(`/api/external-shares/${share.id}`, 'DELETE', undefined, patient.token);
    expect(revoked.statusCode, revoked.body).toBe(200);
    held.release();
    const reissued = await reissuing;
    expect(reissued.statusCode, reissued.body).toBe(409);
    const actions = await db()
      .selectFrom('audit_logs')
      .select('action_type')
      .where('record_id', '=', share.id)
      .where('action_type', 'in', ['external_share.reissue', 'external_share.revoke'])
      .orderBy('id')
      .execute();
    expect(actions.map((r) => r.action_type)).toEqual(['external_share.revoke']);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.smtp.countTo(email)).toBe(mails);
  });
});

describe('throttling by address', () => {
  it('limits link and code requests per client address', async () => {
    const limited = await createTestApp((c) => {
      c.rateLimits.authPerMinute = 3;
    });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++)
        statuses.push(
          (
            await limited.request({
              method: 'POST',
              url: '/api/external/session',
              payload: { token: 'B'.repeat(43), code: '123456' },
              remoteAddress: '198.51.100.9',
            })
          ).statusCode,
        );
      expect(statuses).toEqual([404, 404, 404, 429, 429]);
    } finally {
      await limited.close();
    }
  }, 120_000);
});

describe('ending access', () => {
  it('revocation holds on the very next request, and the link then says it was revoked', async () => {
    const id = await patientImage();
    const { token, code, share } = await shareByLink(id);
    const cookie = cookieOf(await redeem(token, code));
    expect((await asHolder(`/api/external/images/${id}/content`, cookie)).statusCode).toBe(200);
    expect((await json(`/api/external-shares/${share.id}`, 'DELETE', undefined, stranger.token)).statusCode).toBe(404);
    const revoked = await json(`/api/external-shares/${share.id}`, 'DELETE', undefined, patient.token);
    expect(revoked.json().data.state).toBe('revoked');
    const after = await asHolder(`/api/external/images/${id}/content`, cookie);
    expect(after.statusCode).toBe(410);
    expect(after.json().code).toBe('link_revoked');
    expect((await asHolder('/api/external/view', cookie)).statusCode).toBe(410);
    expect((await linkStatus(token)).json().data.state).toBe('revoked');
    expect((await redeem(token, code)).statusCode).toBe(410);
  });

  it('expiry holds on the very next request', async () => {
    const id = await patientImage();
    const { token, code, share } = await shareByLink(id);
    const cookie = cookieOf(await redeem(token, code));
    await db()
      .updateTable('external_shares')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', share.id)
      .execute();
    const after = await asHolder(`/api/external/images/${id}/content`, cookie);
    expect(after.statusCode).toBe(410);
    expect(after.json().code).toBe('link_expired');
    expect((await linkStatus(token)).json().data.state).toBe('expired');
    expect((await redeem(token, code)).json().message).toBe(ExternalShareMessages.expiredLink);
    const listed = (await json('/api/external-shares', 'GET', undefined, patient.token)).json().data.items;
    expect(listed.find((s: { id: string }) => s.id === share.id).state).toBe('expired');
  });
});

describe('a link opens no more than its sharer could share now', () => {
  const shareToPatient = async (imageId: string) =>
    (
      await db()
        .selectFrom('shares')
        .select('id')
        .where('image_id', '=', imageId)
        .where('created_for', '=', patient.user.id)
        .executeTakeFirstOrThrow()
    ).id;

  it("a patient's links end when the provider revokes the patient's share, de-identified ones too", async () => {
    const photo = await patientImage();
    const scan = await patientImage('dicom/us_rgb_explicit_le_8bit.dcm', 'Ultrasound follow-up');
    const plain = await shareByLink(photo);
    const deidentified = await shareByLink(scan, { deidentify: true });
    const plainCookie = cookieOf(await redeem(plain.token, plain.code));
    const copySession = await redeem(deidentified.token, deidentified.code);
    const copyId = copySession.json().data.images[0].id as string;
    expect((await asHolder(`/api/external/images/${photo}/content`, plainCookie)).statusCode).toBe(200);
    expect((await asHolder(`/api/external/images/${copyId}/content`, cookieOf(copySession))).statusCode).toBe(200);

    for (const image of [photo, scan]) {
      const revoked = await json(`/api/sharing/${await shareToPatient(image)}`, 'DELETE', undefined, provider.token);
      expect(revoked.statusCode, revoked.body).toBe(200);
    }
    expect(
      (await t.request({ method: 'GET', url: `/api/images/${photo}/content`, token: patient.token })).statusCode,
    ).toBe(404);
    for (const [url, cookie] of [
      [`/api/external/images/${photo}/content`, plainCookie],
      [`/api/external/images/${photo}/thumbnail`, plainCookie],
      ['/api/external/view', plainCookie],
      [`/api/external/images/${copyId}/content`, cookieOf(copySession)],
    ] as const) {
      const res = await asHolder(url, cookie);
      expect(res.statusCode, url).toBe(410);
      expect(res.json().code).toBe('link_revoked');
    }
    expect((await linkStatus(plain.token)).json().data.state).toBe('revoked');
    expect((await linkStatus(deidentified.token)).json().data.state).toBe('revoked');
    // A wrong code spends no try on a link that opens nothing.
    expect((await redeem(plain.token, wrong(plain.code))).statusCode).toBe(410);
    expect((await redeem(plain.token, plain.code)).statusCode).toBe(410);
    expect((await redeem(deidentified.token, deidentified.code)).statusCode).toBe(410);
    const attempts = await db()
      .selectFrom('external_shares')
      .select('attempts')
      .where('id', '=', plain.share.id)
      .executeTakeFirstOrThrow();
    expect(attempts.attempts).toBe(0);
    // The patient's list says so too, rather than "active".
    const listed = (await json('/api/external-shares', 'GET', undefined, patient.token)).json().data.items as Array<{
      id: string;
      state: string;
    }>;
    for (const share of [plain.share, deidentified.share])
      expect(listed.find((l) => l.id === share.id)?.state, share.id).toBe('ended');
  });

  it("a provider's links pause while their account is deactivated and end for good when it is deleted", async () => {
    const admin = await loginAdmin(t);
    const doctor = await newUser(t, 'healthProvider');
    const up = await uploadFile(t, doctor.token, fixture('other/photo_hopper_portrait.jpg'), { caption: 'Wrist' });
    expect(up.statusCode, up.body).toBe(201);
    const id = up.json().data.id as string;
    await t.app.ctx.services.images.idle();
    const link = await shareByLink(id, {}, doctor.token);
    const cookie = cookieOf(await redeem(link.token, link.code));
    const content = () => asHolder(`/api/external/images/${id}/content`, cookie);
    const toggle = () =>
      t.request({ method: 'PUT', url: `/api/users/toggleUserStatus/${doctor.user.id}`, token: admin.token });
    expect((await content()).statusCode).toBe(200);

    const listedState = async () =>
      (
        (await json('/api/external-shares?scope=all', 'GET', undefined, admin.token)).json().data.items as Array<{
          id: string;
          state: string;
        }>
      ).find((l) => l.id === link.share.id)?.state;
    expect(await listedState()).toBe('active');

    expect((await toggle()).json().data.active).toBe(false);
    expect(await listedState()).toBe('paused');
    expect((await content()).statusCode).toBe(410);
    expect((await linkStatus(link.token)).json().data.state).toBe('revoked');
    expect((await asHolder('/api/external/view', cookie)).statusCode).toBe(410);
    expect((await redeem(link.token, link.code)).statusCode).toBe(410);
    expect((await toggle()).json().data.active).toBe(true);
    expect((await content()).statusCode).toBe(200);
    expect(await listedState()).toBe('active');

    const deleted = await json(`/api/users/${doctor.user.id}`, 'DELETE', undefined, admin.token);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await content()).statusCode).toBe(410);
    expect((await linkStatus(link.token)).json().data.state).toBe('revoked');
    const row = await db()
      .selectFrom('external_shares')
      .select('revoked_at')
      .where('id', '=', link.share.id)
      .executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
  });
});

describe('a study link', () => {
  it('refuses (409, nothing stored, no mail) a study one provider stored under one Study UID for two patients', async () => {
    const other = await newUser(t, 'patient');
    const study = generateStudy([1]);
    // Sent to the wrong patient first, then to the right one: both copies are stored (the duplicate rule is per patient).
    for (const to of [other, patient]) {
      const res = await uploadFile(t, provider.token, study.series[0]!.instances[0]!.file, {
        caption: 'Shoulder CT',
        patientId: to.user.id,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    await t.app.ctx.services.images.idle();
    const links = async () =>
      (await db().selectFrom('external_shares').select(db().fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    const before = Number(await links());
    const email = 'wrong-patient@elsewhere.example';
    const res = await json(
      '/api/external-shares',
      'POST',
      { studyUid: study.studyUid, recipientEmail: email },
      provider.token,
    );
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().message).toBe(StudyMessages.severalPatients);
    expect(Number(await links())).toBe(before);
    await new Promise((r) => setTimeout(r, 100));
    expect(t.smtp.countTo(email)).toBe(0);
  });
});

describe('migration 0015', () => {
  it('revokes, as of the deletion, the running links of accounts deleted before a deletion revoked them; no other link', async () => {
    const { up } = await import('../../db/migrations/0015-revoke-links-of-deleted-accounts.ts');
    const upload = async (who: SignedIn) => {
      const res = await uploadFile(t, who.token, fixture('other/photo_hopper_portrait.jpg'), { caption: 'Old link' });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.id as string;
    };
    const gone = await newUser(t, 'healthProvider');
    const staying = await newUser(t, 'healthProvider');
    const goneLink = await shareByLink(await upload(gone), {}, gone.token);
    const earlier = await shareByLink(await upload(gone), {}, gone.token);
    const earlierRevokedAt = new Date('2026-01-02T03:04:05Z');
    await db()
      .updateTable('external_shares')
      .set({ revoked_at: earlierRevokedAt })
      .where('id', '=', earlier.share.id)
      .execute();
    const expiredFirst = await shareByLink(await upload(gone), {}, gone.token);
    await db()
      .updateTable('external_shares')
      .set({ expires_at: new Date('2026-02-01T00:00:00Z') })
      .where('id', '=', expiredFirst.share.id)
      .execute();
    const stayingLink = await shareByLink(await upload(staying), {}, staying.token);
    await t.app.ctx.services.images.idle();
    // An account deleted the way it was before the deletion hook: its row marked, its links left live.
    const deletedAt = new Date('2026-03-04T05:06:07Z');
    await db().updateTable('users').set({ deleted_at: deletedAt }).where('id', '=', gone.user.id).execute();

    await up(db() as unknown as Parameters<typeof up>[0]);
    const revokedAt = async (id: string) =>
      (await db().selectFrom('external_shares').select('revoked_at').where('id', '=', id).executeTakeFirstOrThrow())
        .revoked_at;
    expect(await revokedAt(goneLink.share.id)).toEqual(deletedAt);
    expect(await revokedAt(earlier.share.id)).toEqual(earlierRevokedAt);
    expect(await revokedAt(stayingLink.share.id)).toBeNull();
    // A link that had expired before the deletion stays expired, not revoked.
    expect(await revokedAt(expiredFirst.share.id)).toBeNull();
    expect((await linkStatus(goneLink.token)).json().data.state).toBe('revoked');
  });
});

describe('an administrator', () => {
  it("lists every user's links with their sharer, revokes one (audited as another's), and cannot re-issue it", async () => {
    const admin = await loginAdmin(t);
    const id = await patientImage();
    const { token, code, share } = await shareByLink(id);
    const cookie = cookieOf(await redeem(token, code));
    expect((await json('/api/external-shares?scope=all', 'GET', undefined, patient.token)).statusCode).toBe(403);
    const all = (await json('/api/external-shares?scope=all', 'GET', undefined, admin.token)).json().data.items;
    expect(all.find((s: { id: string }) => s.id === share.id)).toMatchObject({
      sharedBy: { id: patient.user.id },
      recipientEmail: share.recipientEmail,
      state: 'active',
    });
    // A read of others' links, audited; their own list is not.
    const listReads = () =>
      db()
        .selectFrom('audit_logs')
        .select('reason')
        .where('action_type', '=', 'external_share.list.read')
        .where('user_id', '=', admin.user.id)
        .orderBy('id')
        .execute();
    expect((await listReads()).at(-1)?.reason).toBe(`scope=all listed=${all.length}`);
    const reads = (await listReads()).length;
    // Their own list stays their own.
    const own = (await json('/api/external-shares', 'GET', undefined, admin.token)).json().data.items;
    expect(await listReads()).toHaveLength(reads);
    expect(own.find((s: { id: string }) => s.id === share.id)).toBeUndefined();

    expect((await json(`/api/external-shares/${share.id}/reissue`, 'POST', undefined, admin.token)).statusCode).toBe(
      404,
    );
    const revoked = await json(`/api/external-shares/${share.id}`, 'DELETE', undefined, admin.token);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().data.state).toBe('revoked');
    expect((await asHolder(`/api/external/images/${id}/content`, cookie)).statusCode).toBe(410);
    const row = await db()
      .selectFrom('audit_logs')
      .select(['user_id', 'reason'])
      .where('action_type', '=', 'external_share.revoke')
      .where('record_id', '=', share.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ user_id: admin.user.id, reason: `link of user ${patient.user.id}` });
  });
});

describe('de-identified', () => {
  it('serves a de-identified copy: no patient name in the bytes, the neutral caption as title', async () => {
    const id = await patientImage('dicom/ct_explicit_le_16bit_signed_small.dcm', 'CT of Jane');
    const source = await t.request({ method: 'GET', url: `/api/images/${id}/content`, token: patient.token });
    const sourceName = dicomParser.parseDicom(new Uint8Array(bytesOf(source))).string('x00100010');
    expect(sourceName).toBeTruthy();
    const { token, code, mail } = await shareByLink(id, { deidentify: true });
    expect(mail.text).toContain('de-identified medical image');
    const session = await redeem(token, code);
    const view = session.json().data;
    expect(view.title).toMatch(/^De-identified /);
    expect(view.images[0].id).not.toBe(id);
    expect(JSON.stringify(view)).not.toContain('CT of Jane');
    const copy = await asHolder(`/api/external/images/${view.images[0].id}/content`, cookieOf(session));
    expect(copy.statusCode).toBe(200);
    const bytes = bytesOf(copy);
    expect(bytes.includes(Buffer.from(sourceName!))).toBe(false);
    expect(dicomParser.parseDicom(new Uint8Array(bytes)).string('x00120062')).toBe('YES');
    // The source itself is not in the share.
    expect((await asHolder(`/api/external/images/${id}/content`, cookieOf(session))).statusCode).toBe(404);
  });
});

describe('logs', () => {
  it('never carry the link token or the code', async () => {
    const id = await patientImage();
    const { token, code } = await shareByLink(id);
    await redeem(token, wrong(code));
    const cookie = cookieOf(await redeem(token, code));
    await asHolder('/api/external/view', cookie);
    await new Promise((r) => setTimeout(r, 50));
    const all = logLines.join('');
    expect(all).toContain('/api/external/session');
    expect(all).not.toContain(token);
    expect(all).not.toContain(cookie.split('=')[1]!);
  });
});

import { SharingMessages } from '@medshare/contracts';
import { sql } from 'kysely';
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
import { createStorage } from '../../storage/index.ts';
import { fixture, uploadFile } from '../images/images.test-helpers.ts';

let t: TestApp;
let owner: SignedIn;
let colleague: SignedIn;
beforeAll(async () => {
  t = await createTestApp();
  owner = await newUser(t, 'healthProvider');
  colleague = await newUser(t, 'healthProvider');
});
afterAll(async () => t?.close());

const post = (url: string, payload: object, token?: string) => t.request({ method: 'POST', url, payload, token });
const get = (url: string, token?: string) => t.request({ method: 'GET', url, token });
const db = () => t.app.ctx.database.db;

async function newImage(patientId?: string): Promise<string> {
  const res = await uploadFile(t, owner.token, fixture('other/photo_hopper_portrait.jpg'), {
    caption: 'Scan',
    ...(patientId ? { patientId } : {}),
  });
  expect(res.statusCode).toBe(201);
  return res.json().data.id;
}

/** Shares and returns the sharing id and code from the recipient's mail. */
async function share(imageId: string, to: SignedIn, expiresInHours?: number, token = owner.token) {
  const before = t.smtp.countTo(to.user.email);
  const res = await post(
    '/api/sharing/request',
    { imagemetadataId: imageId, createdfor: to.user.id, ...(expiresInHours ? { expiresInHours } : {}) },
    token,
  );
  expect(res.statusCode, res.body).toBe(201);
  while (t.smtp.countTo(to.user.email) === before) await new Promise((r) => setTimeout(r, 10));
  const mail = await t.smtp.lastTo(to.user.email);
  const sharingId = /Sharing id: ([0-9a-f-]{36})/.exec(mail.text)![1]!;
  expect(sharingId).toBe(res.json().data.id);
  return { sharingId, code: codeIn(mail), share: res.json().data };
}

const verify = (sharingRequestId: string, verificationCode: string, token: string) =>
  post('/api/sharing/verify', { sharingRequestId, verificationCode }, token);
const wrongCode = (code: string) => (code === '000000' ? '111111' : '000000');
const itemIn = async (token: string, id: string, list = '/api/upload/my-images?limit=100') =>
  (await get(list, token)).json().data.find((i: { id: string }) => i.id === id);

describe('sharing an image', () => {
  it('mails the sharing id and code to the recipient and shows the card as not verified until the code is entered', async () => {
    const id = await newImage();
    const { sharingId, code, share: created } = await share(id, colleague);
    expect(created).toMatchObject({
      imageId: id,
      state: 'pending',
      recipient: { id: colleague.user.id, role: 'healthProvider' },
      createdBy: { id: owner.user.id },
      isPatientShare: false,
    });
    expect(JSON.stringify(created)).not.toMatch(new RegExp(`${code}|code|hash`));
    const card = await itemIn(colleague.token, id);
    expect(card).toMatchObject({
      isShared: true,
      isVerified: false,
      sharingId,
      accessState: 'pending',
      image_url: null,
      sharedBy: { id: owner.user.id },
    });
    expect((await get(`/api/images/${id}/content`, colleague.token)).statusCode).toBe(404);

    const ok = await verify(sharingId, code, colleague.token);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toMatchObject({ sharingId, imageId: id, expiresAt: created.expiresAt });
    expect(await itemIn(colleague.token, id)).toMatchObject({
      isVerified: true,
      accessState: 'verified',
      image_url: `/api/images/${id}/content`,
    });
    expect((await get(`/api/images/${id}/content`, colleague.token)).statusCode).toBe(200);
  });

  it('gives a share a 24-hour default expiry and caps a longer request at share_expiry_max_hours', async () => {
    const id = await newImage();
    const { share: def } = await share(id, colleague);
    expect(Date.parse(def.expiresAt) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    expect(Date.parse(def.expiresAt) - Date.now()).toBeLessThan(24.1 * 3_600_000);
    await db().updateTable('app_settings').set({ value: '48' }).where('name', '=', 'share_expiry_max_hours').execute();
    t.app.ctx.services.settings.invalidate();
    try {
      const other = await newUser(t, 'healthProvider');
      const { share: capped } = await share(id, other, 500);
      expect(Date.parse(capped.expiresAt) - Date.now()).toBeLessThan(48.1 * 3_600_000);
      expect(Date.parse(capped.expiresAt) - Date.now()).toBeGreaterThan(47.9 * 3_600_000);
    } finally {
      await db()
        .updateTable('app_settings')
        .set({ value: '720' })
        .where('name', '=', 'share_expiry_max_hours')
        .execute();
      t.app.ctx.services.settings.invalidate();
    }
  });

  it('gives the patient of an upload a share that never expires', async () => {
    const patient = await newUser(t, 'patient');
    const id = await newImage(patient.user.id);
    const list = (await get(`/api/sharing/image/${id}`, owner.token)).json().data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      recipient: { id: patient.user.id, role: 'patient' },
      isPatientShare: true,
      expiresAt: null,
      state: 'pending',
    });
  });

  it('refuses sharing with oneself, with an inactive user and a second live share to the same person (409)', async () => {
    const id = await newImage();
    expect(
      (await post('/api/sharing/request', { imagemetadataId: id, createdfor: owner.user.id }, owner.token)).statusCode,
    ).toBe(409);
    const inactive = await newUser(t, 'patient');
    const admin = await loginAdmin(t);
    expect(
      (await t.request({ method: 'PUT', url: `/api/users/toggleUserStatus/${inactive.user.id}`, token: admin.token }))
        .statusCode,
    ).toBe(200);
    expect(
      (await post('/api/sharing/request', { imagemetadataId: id, createdfor: inactive.user.id }, owner.token))
        .statusCode,
    ).toBe(409);
    const unknown = await post(
      '/api/sharing/request',
      { imagemetadataId: id, createdfor: '00000000-0000-4000-8000-000000000000' },
      owner.token,
    );
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toContainEqual(expect.objectContaining({ field: 'createdfor' }));
    await share(id, colleague);
    expect(
      (await post('/api/sharing/request', { imagemetadataId: id, createdfor: colleague.user.id }, owner.token))
        .statusCode,
    ).toBe(409);
  });

  it('lets only the uploader or an admin share: a recipient gets 403, a stranger 404, a patient 403', async () => {
    const id = await newImage();
    await share(id, colleague);
    const stranger = await newUser(t, 'healthProvider');
    const patient = await newUser(t, 'patient');
    expect(
      (await post('/api/sharing/request', { imagemetadataId: id, createdfor: stranger.user.id }, colleague.token))
        .statusCode,
    ).toBe(403);
    expect(
      (await post('/api/sharing/request', { imagemetadataId: id, createdfor: colleague.user.id }, stranger.token))
        .statusCode,
    ).toBe(404);
    expect(
      (await post('/api/sharing/request', { imagemetadataId: id, createdfor: colleague.user.id }, patient.token))
        .statusCode,
    ).toBe(403);
    const admin = await loginAdmin(t);
    await share(id, stranger, undefined, admin.token);
  });

  it('rejects unknown body fields and a malformed code with 400', async () => {
    const id = await newImage();
    expect(
      (
        await post(
          '/api/sharing/request',
          { imagemetadataId: id, createdfor: colleague.user.id, code: '123456' },
          owner.token,
        )
      ).statusCode,
    ).toBe(400);
    expect((await verify(id, '12ab56', colleague.token)).statusCode).toBe(400);
  });
});

describe('verifying a share', () => {
  it("refuses recipient A's code for user B: B cannot use A's share, nor A's code on B's own share", async () => {
    const id = await newImage();
    const other = await newUser(t, 'healthProvider');
    const a = await share(id, colleague);
    const b = await share(id, other);
    expect((await verify(a.sharingId, a.code, other.token)).statusCode).toBe(404);
    if (a.code !== b.code) expect((await verify(b.sharingId, a.code, other.token)).statusCode).toBe(400);
    expect((await get(`/api/images/${id}/content`, other.token)).statusCode).toBe(404);
    // A's share is untouched by B's tries.
    expect((await verify(a.sharingId, a.code, colleague.token)).statusCode).toBe(200);
  });

  it('locks the share after five wrong codes (429), even for the right code afterwards', async () => {
    const id = await newImage();
    const { sharingId, code } = await share(id, colleague);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await verify(sharingId, wrongCode(code), colleague.token)).statusCode);
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    const late = await verify(sharingId, code, colleague.token);
    expect(late.statusCode).toBe(429);
    expect(late.json().message).toBe(SharingMessages.locked);
    expect((await itemIn(colleague.token, id)).accessState).toBe('locked');
  });

  it('hides the content again once the share has expired', async () => {
    const id = await newImage();
    const { sharingId, code } = await share(id, colleague, 1);
    expect((await verify(sharingId, code, colleague.token)).statusCode).toBe(200);
    expect((await get(`/api/images/${id}/content`, colleague.token)).statusCode).toBe(200);
    await db()
      .updateTable('shares')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', sharingId)
      .execute();
    // Time passing, played by moving the expiry back behind the app: the row the read before held
    // (images/content-access.ts) carries the real expiry, which ends it at the real time.
    t.app.ctx.contentAccess.forget(null);
    expect((await get(`/api/images/${id}/content`, colleague.token)).statusCode).toBe(404);
    expect(await itemIn(colleague.token, id)).toMatchObject({
      accessState: 'expired',
      isVerified: false,
      image_url: null,
      thumbnailUrl: null,
    });
    const late = await verify(sharingId, code, colleague.token);
    expect(late.statusCode).toBe(400);
    expect(late.json().message).toBe(SharingMessages.expired);
  });

  it('hides the content at once when the share is revoked, and then allows a fresh share', async () => {
    const id = await newImage();
    const { sharingId, code } = await share(id, colleague);
    expect((await verify(sharingId, code, colleague.token)).statusCode).toBe(200);
    expect(
      (await t.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: colleague.token })).statusCode,
    ).toBe(403);
    const revoke = await t.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: owner.token });
    expect(revoke.statusCode).toBe(200);
    expect(revoke.json().data).toMatchObject({ state: 'revoked' });
    expect((await get(`/api/images/${id}/content`, colleague.token)).statusCode).toBe(404);
    expect(await itemIn(colleague.token, id)).toMatchObject({ accessState: 'revoked', image_url: null });
    expect((await verify(sharingId, code, colleague.token)).statusCode).toBe(404);
    const again = await share(id, colleague);
    expect(again.sharingId).not.toBe(sharingId);
  });

  it('lets a patient unlock their own image and never someone else’s', async () => {
    const p = await newUser(t, 'patient');
    const q = await newUser(t, 'patient');
    const id = await newImage(p.user.id);
    await t.app.ctx.services.images.idle();
    const mail = await t.smtp.lastTo(p.user.email);
    const sharingId = /Sharing id: ([0-9a-f-]{36})/.exec(mail.text)![1]!;
    expect((await verify(sharingId, codeIn(mail), q.token)).statusCode).toBe(404);
    expect((await verify(sharingId, codeIn(mail), p.token)).statusCode).toBe(200);
    expect((await get(`/api/images/${id}/content`, p.token)).statusCode).toBe(200);
    expect((await get(`/api/images/${id}/content`, q.token)).statusCode).toBe(404);
  });
});

describe('listing and auditing shares', () => {
  it('lists the shares of an image for the uploader and admins only, never with a code', async () => {
    const id = await newImage();
    const { code } = await share(id, colleague);
    const res = await get(`/api/sharing/image/${id}`, owner.token);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toHaveLength(1);
    expect(res.body).not.toContain(code);
    expect(res.body).not.toMatch(/argon2|code_hash|codeHash/);
    expect((await get(`/api/sharing/image/${id}`, colleague.token)).statusCode).toBe(403);
    expect((await get(`/api/sharing/image/${id}`, (await newUser(t, 'healthProvider')).token)).statusCode).toBe(404);
    expect((await get(`/api/sharing/image/${id}`, (await loginAdmin(t)).token)).statusCode).toBe(200);
  });

  it('audits share create, a failed verify, verify and revoke with metadata only', async () => {
    const id = await newImage();
    const { sharingId, code } = await share(id, colleague);
    await verify(sharingId, wrongCode(code), colleague.token);
    await verify(sharingId, code, colleague.token);
    await t.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: owner.token });
    const rows = await db()
      .selectFrom('audit_logs')
      .selectAll()
      .where('record_id', '=', sharingId)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => `${r.action_type}:${r.status}`)).toEqual([
      'share.create:success',
      'share.verify:failure',
      'share.verify:success',
      'share.revoke:success',
    ]);
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('counts dashboard stats over what each viewer sees', async () => {
    const viewer = await newUser(t, 'healthProvider');
    const mine = await uploadFile(t, viewer.token, fixture('other/photo_hopper_portrait.jpg'));
    expect(mine.statusCode).toBe(201);
    await share(await newImage(), viewer);
    const actor = {
      userId: viewer.user.id,
      sessionId: '',
      role: 'healthProvider' as const,
      permissions: new Set<never>(),
      ip: null,
    };
    expect(await t.app.ctx.services.images.stats(actor)).toEqual({ totalImages: 2, sharedImages: 1 });
  });
});

describe('share creation under a race', () => {
  /** Twelve requests for one image and recipient at once; answers, rows, mails and audit rows. */
  async function race(id: string, to: SignedIn) {
    const mailsBefore = t.smtp.countTo(to.user.email);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        post('/api/sharing/request', { imagemetadataId: id, createdfor: to.user.id }, owner.token),
      ),
    );
    // Mail goes out before the 201; give a stray one time to arrive before counting.
    await new Promise((r) => setTimeout(r, 300));
    const rows = await db().selectFrom('shares').select('id').where('image_id', '=', id).execute();
    const audit = await db()
      .selectFrom('audit_logs')
      .select(['action_type', 'record_id', 'status', 'reason'])
      .where('table_name', '=', 'shares')
      .where('reason', 'like', `%image=${id}%`)
      .orderBy('id')
      .execute();
    return {
      statuses: answers.map((a) => a.statusCode).sort(),
      created: answers.filter((a) => a.statusCode === 201).map((a) => a.json().data.id as string),
      rows: rows.map((r) => r.id),
      mails: t.smtp.countTo(to.user.email) - mailsBefore,
      audit,
    };
  }

  it('creates one share, sends one mail and answers 409 to the rest (never 5xx), every row audited', async () => {
    const id = await newImage();
    const to = await newUser(t, 'healthProvider');
    const r = await race(id, to);
    expect(r.statuses).toEqual([201, ...Array(11).fill(409)]);
    expect(r.rows).toEqual(r.created);
    expect(r.mails).toBe(1);
    expect(r.audit.map((a) => `${a.action_type}:${a.status}:${a.record_id}`)).toEqual([
      `share.create:success:${r.created[0]}`,
    ]);
  });

  it('replaces a revoked share once, and audits the replaced row', async () => {
    const id = await newImage();
    const to = await newUser(t, 'healthProvider');
    const { sharingId } = await share(id, to);
    expect(
      (await t.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: owner.token })).statusCode,
    ).toBe(200);
    const r = await race(id, to);
    expect(r.statuses).toEqual([201, ...Array(11).fill(409)]);
    expect(r.rows).toEqual(r.created);
    expect(r.mails).toBe(1);
    expect(r.audit.map((a) => `${a.action_type}:${a.status}:${a.record_id}`)).toEqual([
      `share.create:success:${sharingId}`,
      `share.revoke:success:${sharingId}`,
      `share.delete:success:${sharingId}`,
      `share.create:success:${r.created[0]}`,
    ]);
  });
});

describe('de-identified shares', () => {
  /** The same DICOM file each time, for a patient of its own (the same instance twice for one patient is a duplicate). */
  const dicomImage = async (patient?: SignedIn) => {
    const up = await uploadFile(t, owner.token, fixture('dicom/ct_explicit_le_16bit_signed_small.dcm'), {
      caption: 'CT for a copy',
      patientId: (patient ?? (await newUser(t, 'patient'))).user.id,
    });
    expect(up.statusCode, up.body).toBe(201);
    return up.json().data.id as string;
  };
  const shareCopy = (sourceId: string, to: SignedIn) =>
    post('/api/sharing/request', { imagemetadataId: sourceId, createdfor: to.user.id, deidentify: true }, owner.token);
  /** Blobs no image row (live or deleted) names: what a request left behind. */
  async function unnamedBlobs(): Promise<string[]> {
    await t.app.ctx.services.images.idle();
    const storage = createStorage(t.config);
    try {
      const keys: string[] = [];
      for await (const blob of storage.list()) keys.push(blob.key);
      const named = await db().selectFrom('images').select(['storage_key', 'thumb_storage_key']).execute();
      const known = new Set(named.flatMap((r) => [r.storage_key, r.thumb_storage_key]));
      return keys.filter((key) => !known.has(key));
    } finally {
      storage.close();
    }
  }

  it('made at once for one recipient: one copy, one share and one mail, 409 to the rest, no blob left behind', async () => {
    const sourceId = await dicomImage();
    const to = await newUser(t, 'healthProvider');
    const mailsBefore = t.smtp.countTo(to.user.email);
    const leftBefore = await unnamedBlobs();
    const answers = await Promise.all(Array.from({ length: 6 }, () => shareCopy(sourceId, to)));
    await new Promise((r) => setTimeout(r, 300));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const copies = await db().selectFrom('images').select('id').where('source_image_id', '=', sourceId).execute();
    expect(copies).toHaveLength(1);
    const shares = await db().selectFrom('shares').select('image_id').where('created_for', '=', to.user.id).execute();
    expect(shares).toEqual([{ image_id: copies[0]!.id }]);
    expect(t.smtp.countTo(to.user.email) - mailsBefore).toBe(1);
    expect(await unnamedBlobs()).toEqual(leftBefore);
  });

  it('end with their source: deleting it deletes its copy, revokes the copy’s shares and audits each', async () => {
    const sourceId = await dicomImage();
    const to = await newUser(t, 'healthProvider');
    const made = await shareCopy(sourceId, to);
    expect(made.statusCode, made.body).toBe(201);
    const copyId = made.json().data.imageId as string;
    expect(copyId).not.toBe(sourceId);
    const code = codeIn(await t.smtp.lastTo(to.user.email));
    expect((await verify(made.json().data.id, code, to.token)).statusCode).toBe(200);
    expect((await get(`/api/images/${copyId}/content`, to.token)).statusCode).toBe(200);

    const deleted = await t.request({ method: 'DELETE', url: `/api/upload/image/${sourceId}`, token: owner.token });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await get(`/api/images/${copyId}/content`, to.token)).statusCode).toBe(404);
    expect(await itemIn(to.token, copyId)).toBeUndefined();
    const copy = await db()
      .selectFrom('images')
      .select(['deleted_at', 'storage_key'])
      .where('id', '=', copyId)
      .executeTakeFirstOrThrow();
    expect(copy.deleted_at).not.toBeNull();
    const share = await db().selectFrom('shares').select('revoked_at').where('image_id', '=', copyId).execute();
    expect(share.map((s) => s.revoked_at)).toEqual([expect.any(Date)]);
    const metadata = await db()
      .selectFrom('dicom_metadata')
      .select('image_id')
      .where('image_id', '=', copyId)
      .execute();
    expect(metadata).toEqual([]);
    const rows = await db()
      .selectFrom('audit_logs')
      .select(['record_id', 'reason'])
      .where('action_type', '=', 'image.delete')
      .where('record_id', 'in', [sourceId, copyId])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { record_id: sourceId, reason: null },
      { record_id: copyId, reason: `de-identified copy of ${sourceId}` },
    ]);
    // The copy's blob went with it.
    const storage = createStorage(t.config);
    try {
      const keys: string[] = [];
      for await (const blob of storage.list()) keys.push(blob.key);
      expect(keys).not.toContain(copy.storage_key);
    } finally {
      storage.close();
    }
  });

  it('migration 0016 deletes the live copies of images deleted before, as of their deletion; no other', async () => {
    const { up } = await import('../../db/migrations/0016-delete-copies-of-deleted-images.ts');
    const to = await newUser(t, 'healthProvider');
    const goneSource = await dicomImage();
    const staySource = await dicomImage();
    const goneCopy = (await shareCopy(goneSource, to)).json().data.imageId as string;
    const stayCopy = (await shareCopy(staySource, to)).json().data.imageId as string;
    // A source deleted the way it was before: its row marked, its copy and the copy's share left live.
    const deletedAt = new Date('2026-03-04T05:06:07Z');
    await db().updateTable('images').set({ deleted_at: deletedAt }).where('id', '=', goneSource).execute();

    await up(db() as unknown as Parameters<typeof up>[0]);
    const state = async (id: string) => ({
      deleted: (await db().selectFrom('images').select('deleted_at').where('id', '=', id).executeTakeFirstOrThrow())
        .deleted_at,
      revoked: (await db().selectFrom('shares').select('revoked_at').where('image_id', '=', id).execute()).map(
        (s) => s.revoked_at,
      ),
      metadata: (await db().selectFrom('dicom_metadata').select('image_id').where('image_id', '=', id).execute())
        .length,
    });
    expect(await state(goneCopy)).toEqual({ deleted: deletedAt, revoked: [deletedAt], metadata: 0 });
    expect(await state(stayCopy)).toEqual({ deleted: null, revoked: [null], metadata: 1 });
  });
});

describe('revoking a share', () => {
  it('commits the revoke and its audit row together: without the row the share stays open', async () => {
    const id = await newImage();
    const to = await newUser(t, 'healthProvider');
    const { sharingId } = await share(id, to);
    const revokedAt = async () =>
      (await db().selectFrom('shares').select('revoked_at').where('id', '=', sharingId).executeTakeFirstOrThrow())
        .revoked_at;
    const head = (
      await sql<{ last_id: string; last_hash: string }>`SELECT last_id, last_hash FROM audit_head`.execute(db())
    ).rows[0]!;
    await sql`DELETE FROM audit_head`.execute(db());
    try {
      const res = await t.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: owner.token });
      expect(res.statusCode).toBe(500);
      expect(await revokedAt()).toBeNull();
    } finally {
      await sql`INSERT INTO audit_head (id, last_id, last_hash) VALUES (1, ${head.last_id}, ${head.last_hash})`.execute(
        db(),
      );
    }
    const res = await t.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: owner.token });
    expect(res.statusCode).toBe(200);
    expect(await revokedAt()).not.toBeNull();
  });
});

describe('a share revoked while its code is checked, or twice', () => {
  const auditOf = async (id: string) =>
    (
      await db()
        .selectFrom('audit_logs')
        .select(['action_type', 'status'])
        .where('record_id', '=', id)
        .where('action_type', 'in', ['share.verify', 'share.revoke'])
        .orderBy('id')
        .execute()
    ).map((r) => `${r.action_type}:${r.status}`);

  it('a verify that loses to a revoke answers 404 and records a failure: never "verified" after the revoke', async () => {
    const id = await newImage();
    const { sharingId, code } = await share(id, colleague);
    // The revoke commits while the recipient's code is being checked.
    const held = holdNextHasherCall(t, 'verify');
    const verifying = verify(sharingId, code, colleague.token);
    await held.reached;
    const revoked = await t.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: owner.token });
    expect(revoked.statusCode, revoked.body).toBe(200);
    held.release();
    const verified = await verifying;
    expect(verified.statusCode, verified.body).toBe(404);
    expect(await auditOf(sharingId)).toEqual(['share.revoke:success', 'share.verify:failure']);
    const row = await db()
      .selectFrom('shares')
      .select('verified_at')
      .where('id', '=', sharingId)
      .executeTakeFirstOrThrow();
    expect(row.verified_at).toBeNull();
  });

  it('a verify whose share expires while its code is checked answers as an expired share (400)', async () => {
    const id = await newImage();
    const { sharingId, code } = await share(id, colleague);
    const held = holdNextHasherCall(t, 'verify');
    const verifying = verify(sharingId, code, colleague.token);
    await held.reached;
    await db()
      .updateTable('shares')
      .set({ expires_at: new Date(Date.now() - 1_000) })
      .where('id', '=', sharingId)
      .execute();
    held.release();
    const verified = await verifying;
    expect(verified.statusCode, verified.body).toBe(400);
    expect(verified.json().message).toBe(SharingMessages.expired);
    expect(await auditOf(sharingId)).toEqual(['share.verify:failure']);
  });

  it('a second revoke answers the revoked share and records nothing more (a study share: studies.test.ts)', async () => {
    const id = await newImage();
    const { sharingId } = await share(id, colleague);
    for (let i = 0; i < 2; i++) {
      const res = await t.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: owner.token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.state).toBe('revoked');
    }
    expect(await auditOf(sharingId)).toEqual(['share.revoke:success']);
  });
});

describe('a share whose mail cannot be sent', () => {
  it('is withdrawn, and both its creation and its removal are in the audit trail', async () => {
    const id = await newImage();
    const to = await newUser(t, 'healthProvider');
    t.smtp.setFailing(true);
    let res;
    try {
      res = await post('/api/sharing/request', { imagemetadataId: id, createdfor: to.user.id }, owner.token);
    } finally {
      t.smtp.setFailing(false);
    }
    expect(res.statusCode).toBeGreaterThanOrEqual(500);
    expect(await db().selectFrom('shares').select('id').where('image_id', '=', id).execute()).toEqual([]);
    const audit = await db()
      .selectFrom('audit_logs')
      .select(['action_type', 'status', 'record_id'])
      .where('reason', 'like', `image=${id}%`)
      .orderBy('id')
      .execute();
    expect(audit.map((a) => `${a.action_type}:${a.status}`)).toEqual(['share.create:success', 'share.delete:failure']);
    expect(audit[0]!.record_id).toBe(audit[1]!.record_id);
    // The pair is free again.
    await share(id, to);
  });
});

describe('the share mail', () => {
  const personOf = (s: SignedIn) => s.user as unknown as { firstname: string; lastname: string };
  const fullName = (s: SignedIn) => `${personOf(s).firstname} ${personOf(s).lastname}`;
  const setting = async (name: string, value: string) => {
    await db().updateTable('app_settings').set({ value }).where('name', '=', name).execute();
    t.app.ctx.services.settings.invalidate();
  };

  it('names the caption, the sharer and the end in the display time zone, labels the code and links to Verify without the code', async () => {
    const res = await uploadFile(t, owner.token, fixture('other/photo_hopper_portrait.jpg'), {
      caption: 'Knee MRI left',
    });
    expect(res.statusCode).toBe(201);
    const id = res.json().data.id as string;
    await setting('display_time_zone', 'America/New_York');
    try {
      const { sharingId, code, share: created } = await share(id, colleague);
      const mail = await t.smtp.lastTo(colleague.user.email);
      expect(mail.subject).toBe(`${fullName(owner)} shared “Knee MRI left” with you on MedShare`);
      expect(mail.text).toContain('Image: Knee MRI left');
      expect(mail.text).toContain(`Shared by: ${fullName(owner)}`);
      expect(mail.text).toMatch(/^Verification code: \d{6}$/m);
      expect(mail.text).toContain(`Verification code: ${code}`);
      const { displayLocale } = await t.app.ctx.services.settings.effective();
      const ends = new Intl.DateTimeFormat(displayLocale, {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone: 'America/New_York',
      }).format(new Date(created.expiresAt));
      expect(mail.text).toContain(`Share ends: ${ends} (America/New_York)`);
      const link = /^Verify this image: (\S+)$/m.exec(mail.text)![1]!;
      expect(link).toMatch(new RegExp(`^https?://[^/]+/view-images\\?verify=${sharingId}$`));
      expect(mail.html).toContain(`href="${link}"`);
      // The code is in the mail, never in a link.
      for (const url of [...mail.text.matchAll(/https?:\/\/\S+/g), ...mail.html.matchAll(/href="([^"]+)"/g)])
        expect(url[0]).not.toContain(code);
      expect(mail.html).toContain('Knee MRI left');
      expect(mail.html).toMatch(new RegExp(`Verification code: <strong[^>]*>${code}</strong>`));
    } finally {
      await setting('display_time_zone', 'Asia/Karachi');
    }
  });

  it('for a de-identified share names the copy only: no source caption, patient name or DICOM identifying text', async () => {
    const patient = await newUser(t, 'patient');
    const f = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm');
    const caption = `CT for ${fullName(patient)}`;
    const up = await uploadFile(t, owner.token, f, { caption, patientId: patient.user.id });
    expect(up.statusCode, up.body).toBe(201);
    const sourceId = up.json().data.id as string;
    const meta = (await get(`/api/images/${sourceId}/dicom/metadata`, owner.token)).json().data;
    const identifying = [meta.phi.patientName, meta.phi.patientId, meta.studyInstanceUid].filter(
      (v): v is string => typeof v === 'string' && v.length > 2,
    );
    expect(identifying.length).toBeGreaterThan(0);
    const to = await newUser(t, 'healthProvider');
    const before = t.smtp.countTo(to.user.email);
    const res = await post(
      '/api/sharing/request',
      { imagemetadataId: sourceId, createdfor: to.user.id, deidentify: true },
      owner.token,
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(t.smtp.countTo(to.user.email)).toBe(before + 1);
    const mail = await t.smtp.lastTo(to.user.email);
    expect(mail.text).toMatch(/^Image: De-identified CT image$/m);
    for (const part of [mail.subject, mail.text, mail.html]) {
      expect(part).not.toContain(caption);
      expect(part).not.toContain(personOf(patient).lastname);
      for (const value of identifying) expect(part).not.toContain(value);
    }
  });

  it('escapes markup in the caption in the HTML mail and keeps it out of the headers', async () => {
    const caption = '<img src=x onerror=alert(1)> "Tom & Jerry"\r\nBcc: x@evil.test';
    const res = await uploadFile(t, owner.token, fixture('other/photo_hopper_portrait.jpg'), { caption });
    expect(res.statusCode).toBe(201);
    const to = await newUser(t, 'healthProvider');
    await share(res.json().data.id, to);
    const mail = await t.smtp.lastTo(to.user.email);
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;Tom &amp; Jerry&quot; Bcc: x@evil.test');
    expect(mail.text).toContain('Image: <img src=x onerror=alert(1)> "Tom & Jerry" Bcc: x@evil.test');
    // One line: the caption cannot add a header.
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(t.smtp.countTo('x@evil.test')).toBe(0);
  });

  it('gives seven shares to one patient seven different subjects, each naming its caption, the patient share never ending', async () => {
    const patient = await newUser(t, 'patient');
    const captions = ['Chest X-ray', 'Knee MRI', 'Hand X-ray', 'Foot X-ray', 'Spine CT', 'Head CT', 'Skin photo'];
    for (const caption of captions) {
      const res = await uploadFile(t, owner.token, fixture('other/photo_hopper_portrait.jpg'), {
        caption,
        patientId: patient.user.id,
      });
      expect(res.statusCode).toBe(201);
    }
    await t.app.ctx.services.images.idle();
    // Besides the account's own confirmation mail.
    const mails = t.smtp.mails.filter(
      (m) => m.to.includes(patient.user.email.toLowerCase()) && m.subject.includes(' shared '),
    );
    expect(mails.map((m) => m.subject).sort()).toEqual(
      captions.map((c) => `${fullName(owner)} shared “${c}” with you on MedShare`).sort(),
    );
    for (const mail of mails) {
      expect(mail.text).toContain('Share ends: Does not end (your own image)');
      expect(mail.text).toMatch(/^Verification code: \d{6}$/m);
      expect(mail.text).toMatch(/\/view-images\?verify=[0-9a-f-]{36}$/m);
    }
  });
});

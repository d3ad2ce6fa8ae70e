import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { createKeyring } from '../../crypto/envelope.ts';
import { createEncryptedStore } from '../../storage/encrypted-store.ts';
import { createFsStorage } from '../../storage/fs-storage.ts';
import { createImagesRepository } from './images.repository.ts';
import { fixture, uploadFile } from './images.test-helpers.ts';
import { createThumbnailer } from './thumbnails.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/**
 * A thumbnail made twice at once: a second instance's `resumePending` (every instance runs it at
 * start and hourly) or an id queued twice. With one key for every attempt, the loser of the record
 * deleted the file the winner had recorded, and the thumbnail answered 500 for good (found by a review).
 */
describe('two makers of one thumbnail', () => {
  async function pendingImage() {
    const provider = await newUser(t, 'healthProvider');
    const up = await uploadFile(t, provider.token, fixture('other/photo_chelsea_cat.png'), { caption: 'cat' });
    expect(up.statusCode).toBe(201);
    const id = up.json().data.id as string;
    await t.app.ctx.services.images.idle();
    // Back to the state right after the upload committed: pending, no thumbnail yet.
    await t.app.ctx.database.db
      .updateTable('images')
      .set({
        thumbnail_status: 'pending',
        thumb_storage_key: null,
        thumb_wrapped_key: null,
        thumb_key_id: null,
        thumb_content_type: null,
        thumb_size_bytes: null,
        thumb_sha256: null,
      })
      .where('id', '=', id)
      .execute();
    return { id, token: provider.token };
  }
  const thumbnailer = () =>
    createThumbnailer({
      repo: createImagesRepository(t.app.ctx.database.db),
      store: createEncryptedStore(createFsStorage(join(t.dataDir, 'blobs')), createKeyring(t.config.masterKey)),
      log: pino({ level: 'silent' }),
    });
  async function readable(id: string, token: string) {
    t.app.ctx.contentAccess.forget(null);
    const row = await t.app.ctx.database.db
      .selectFrom('images')
      .select('thumbnail_status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.thumbnail_status).toBe('ready');
    const thumb = await t.request({ method: 'GET', url: `/api/images/${id}/thumbnail`, token });
    expect(thumb.statusCode, thumb.body.slice(0, 200)).toBe(200);
  }

  it('on two instances at once: the recorded thumbnail stays readable', async () => {
    const { id, token } = await pendingImage();
    const [a, b] = [thumbnailer(), thumbnailer()];
    a.enqueue(id);
    b.enqueue(id);
    await Promise.all([a.idle(), b.idle()]);
    await readable(id, token);
  });

  it('queued twice in one batch on one instance: the recorded thumbnail stays readable', async () => {
    const { id, token } = await pendingImage();
    const a = thumbnailer();
    a.enqueue('00000000-0000-4000-8000-000000000000'); // busy with another batch meanwhile
    a.enqueue(id);
    a.enqueue(id);
    await a.idle();
    await readable(id, token);
  });
});

import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { createTestApp, newUser } from '../../../test/harness.ts';
import { watchFreedSizes } from '../../storage/free-buffer.test-helpers.ts';
import { bytesOf, fixture, uploadFile } from './images.test-helpers.ts';

describe('a content read whose audit row cannot be written', () => {
  it('sends none of the image and frees its decrypted bytes at once', async () => {
    const t = await createTestApp();
    try {
      const provider = await newUser(t, 'healthProvider');
      const photo = fixture('other/photo_chelsea_cat.png'); // 240 KB: four pieces of 64 KiB or less
      const uploaded = await uploadFile(t, provider.token, photo, { caption: 'Scan' });
      expect(uploaded.statusCode, uploaded.body).toBe(201);
      const id: string = uploaded.json().data.id;
      await t.app.ctx.services.images.idle(); // its thumbnail made, so that only the read frees anything
      // The audit chain's head is gone: every append fails (audit.test.ts › audit head row missing).
      await sql`DELETE FROM audit_head`.execute(t.app.ctx.database.db);
      const freed = watchFreedSizes();

      const res = await t.request({ method: 'GET', url: `/api/images/${id}/content`, token: provider.token });
      expect(res.statusCode).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(bytesOf(res).includes(photo.data.subarray(0, 64))).toBe(false);
      // The whole read's plaintext handed back to the allocator, every piece of it (each in a buffer of its own).
      expect(freed.reduce((n, bytes) => n + bytes, 0)).toBe(photo.data.length);
      expect(freed.length).toBeGreaterThanOrEqual(3);
    } finally {
      vi.restoreAllMocks();
      await t.close();
    }
  });
});

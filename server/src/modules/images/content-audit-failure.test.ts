import { sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { createTestApp, newUser } from '../../../test/harness.ts';
import type * as FreeBuffer from '../../storage/free-buffer.ts';
import { freeBuffer } from '../../storage/free-buffer.ts';
import { bytesOf, fixture, uploadFile } from './images.test-helpers.ts';

// The service's calls to freeBuffer, seen (and still made) by the test.
vi.mock('../../storage/free-buffer.ts', async (original) => {
  const actual = await original<typeof FreeBuffer>();
  return { ...actual, freeBuffer: vi.fn(actual.freeBuffer) };
});

describe('a content read whose audit row cannot be written', () => {
  it('sends none of the image and frees its decrypted bytes at once', async () => {
    const t = await createTestApp();
    try {
      const provider = await newUser(t, 'healthProvider');
      const photo = fixture('other/photo_hopper_portrait.jpg');
      const uploaded = await uploadFile(t, provider.token, photo, { caption: 'Scan' });
      expect(uploaded.statusCode, uploaded.body).toBe(201);
      const id: string = uploaded.json().data.id;
      // The audit chain's head is gone: every append fails (audit.test.ts › audit head row missing).
      await sql`DELETE FROM audit_head`.execute(t.app.ctx.database.db);
      vi.mocked(freeBuffer).mockClear();

      const res = await t.request({ method: 'GET', url: `/api/images/${id}/content`, token: provider.token });
      expect(res.statusCode).toBe(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(bytesOf(res).includes(photo.data.subarray(0, 64))).toBe(false);
      // The whole read's plaintext, every piece, handed back to the allocator: each now reads as empty.
      const freed = vi.mocked(freeBuffer).mock.calls.map(([view]) => view);
      expect(freed.length).toBeGreaterThan(0);
      expect(freed.every((view) => view.byteLength === 0)).toBe(true);
    } finally {
      await t.close();
    }
  });
});

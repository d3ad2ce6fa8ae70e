import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { fixture, uploadFile } from './images.test-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const blobPath = (key: string) => join(t.dataDir, 'blobs', key.slice(0, 2), key);

/**
 * An upload whose row committed but whose answer never came back (a connection cut after COMMIT
 * left the server, a failover): the upload reports an error, but the row is there, and the blob it
 * points at must be too. It was deleted whenever the upload had not seen its commit succeed, leaving
 * a row without its file (found by a review).
 */
describe('an upload whose commit answer was lost', () => {
  it('keeps the blob of the row that did commit', async () => {
    const provider = await newUser(t, 'healthProvider');
    const executor = t.app.ctx.database.db.getExecutor();
    const real = executor.executeQuery.bind(executor);
    let armed = true;
    executor.executeQuery = (async (query: CompiledQuery, options?: Parameters<typeof real>[1]) => {
      const result = await real(query, options);
      if (armed && /inserted AS \(insert into "images"/i.test(query.sql)) {
        armed = false;
        throw new Error('Connection terminated unexpectedly');
      }
      return result;
    }) as typeof real;
    try {
      const res = await uploadFile(t, provider.token, fixture('other/photo_chelsea_cat.png'), { caption: 'lost' });
      // 503: the error reads as the database away.
      expect(res.statusCode).toBe(503);
    } finally {
      executor.executeQuery = real;
    }
    expect(armed).toBe(false);
    const rows = await t.app.ctx.database.db
      .selectFrom('images')
      .select('storage_key')
      .where('caption', '=', 'lost')
      .execute();
    expect(rows).toHaveLength(1);
    expect(existsSync(blobPath(rows[0]!.storage_key))).toBe(true);
  });

  it('still removes the blob of an upload the database refused for certain (no row)', async () => {
    const provider = await newUser(t, 'healthProvider');
    const executor = t.app.ctx.database.db.getExecutor();
    const real = executor.executeQuery.bind(executor);
    let refusedKey: string | null = null;
    executor.executeQuery = (async (query: CompiledQuery, options?: Parameters<typeof real>[1]) => {
      if (refusedKey === null && /inserted AS \(insert into "images"/i.test(query.sql)) {
        refusedKey = String(query.parameters.find((p) => typeof p === 'string' && /^[0-9a-f-]{36}$/.test(p)));
        // PostgreSQL's answer for a full disk: SQLSTATE 53100, the statement refused for certain.
        throw Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' });
      }
      return real(query, options);
    }) as typeof real;
    try {
      const res = await uploadFile(t, provider.token, fixture('other/photo_chelsea_cat.png'), { caption: 'refused' });
      expect(res.statusCode).toBe(500);
    } finally {
      executor.executeQuery = real;
    }
    expect(refusedKey).not.toBeNull();
    expect(existsSync(blobPath(refusedKey!))).toBe(false);
  });
});

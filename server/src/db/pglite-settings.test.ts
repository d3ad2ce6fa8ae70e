import { sql } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, PGLITE_SHARED_BUFFERS, loadConfig } from '../config.ts';
import { openDatabase } from './db.ts';

/** Embedded PGlite's buffer cache: all of it is resident from its start (docs/decisions.md › Memory of a server under load and at rest). */
describe('PGlite buffer cache', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'medshare-pglite-settings-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function sharedBuffers(target: Parameters<typeof openDatabase>[0]): Promise<string> {
    const database = await openDatabase(target);
    try {
      const { rows } = await sql<{ shared_buffers: string }>`SHOW shared_buffers`.execute(database.db);
      return rows[0]!.shared_buffers;
    } finally {
      await database.close();
    }
  }

  it('is 32MB unless PGLITE_SHARED_BUFFERS says otherwise, not PostgreSQL’s 128MB', async () => {
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config.database).toMatchObject({ kind: 'pglite', sharedBuffers: '32MB' });
    expect(PGLITE_SHARED_BUFFERS).toBe('32MB');
    // A database opened without the setting (the tests, the CLIs' defaults) gets the same.
    expect(await sharedBuffers({ kind: 'pglite', dir: null })).toBe('32MB');
  });

  it('takes a size from the environment and gives it to PostgreSQL', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, PGLITE_SHARED_BUFFERS: '16MB' });
    expect(config.database).toMatchObject({ kind: 'pglite', sharedBuffers: '16MB' });
    expect(await sharedBuffers(config.database)).toBe('16MB');
  });

  it('refuses a value that is not a size PostgreSQL and PGlite can take, before PostgreSQL sees it', () => {
    for (const value of ['128kB', '1GB', '1024MB'])
      expect(loadConfig({ DATA_DIR: dataDir, PGLITE_SHARED_BUFFERS: value }).database).toMatchObject({
        sharedBuffers: value,
      });
    for (const value of ['lots', '32', '0MB', '32MB -c fsync=off', '1TB', '64kB', '2GB', '999999GB'])
      expect(() => loadConfig({ DATA_DIR: dataDir, PGLITE_SHARED_BUFFERS: value }), value).toThrow(ConfigError);
  });
});

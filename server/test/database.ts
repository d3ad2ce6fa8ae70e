import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Config } from '../src/config.ts';
import { freshPgliteDir } from './pglite-template.ts';

/** Which database the suite runs on: PGlite by default, PostgreSQL when the project asks for it. */
export const testDbKind = process.env.MEDSHARE_TEST_DB === 'postgres' ? 'postgres' : 'pglite';

/** A fresh, empty database per test file; dropped again by `drop`. */
export async function createTestDatabase(): Promise<{ target: Config['database']; drop: () => Promise<void> }> {
  if (testDbKind === 'pglite') {
    // A copy of the migrated template (pglite-template.ts), on disk: an in-memory PGlite runs initdb.
    const dir = mkdtempSync(join(tmpdir(), 'medshare-pglite-'));
    await freshPgliteDir(dir);
    return { target: { kind: 'pglite', dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('MEDSHARE_TEST_DB=postgres needs TEST_DATABASE_URL');
  const name = `medshare_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgres', url: url.toString() },
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../src/config.ts';

/** Which database the suite runs on: PGlite in memory by default, PostgreSQL when the project asks for it. */
export const testDbKind = process.env.MEDSHARE_TEST_DB === 'postgres' ? 'postgres' : 'pglite';

/** A fresh, empty database per test file; dropped again by `drop`. */
export async function createTestDatabase(): Promise<{ target: Config['database']; drop: () => Promise<void> }> {
  if (testDbKind === 'pglite') return { target: { kind: 'pglite', dir: null }, drop: async () => {} };
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

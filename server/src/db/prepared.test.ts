import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDbKind } from '../../test/database.ts';
import { type DatabaseHandle, PREPARED, openDatabase } from './db.ts';

/**
 * Hot queries marked PREPARED run as named prepared statements on PostgreSQL (docs/decisions.md ›
 * Prepared statements and sessions from memory); everything else stays unnamed, so that a list keeps a plan made for its
 * own parameters. PGlite has no pool of server sessions to prepare on: the mark is a comment there.
 */
const skip = testDbKind === 'postgres' ? null : 'PostgreSQL only: PGlite ignores the mark';

describe.skipIf(skip !== null)(`prepared statements${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  it('prepares a marked query once on its connection and reuses it; an unmarked one is never named', async () => {
    const prepared = await handle.db.connection().execute(async (conn) => {
      for (let i = 0; i < 3; i++) {
        const { rows } = await sql<{ n: number }>`SELECT ${i}::int + 1 AS n ${PREPARED}`.execute(conn);
        expect(rows[0]!.n).toBe(i + 1);
        await sql`SELECT ${i}::int AS unmarked`.execute(conn);
      }
      const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(conn);
      return rows.map((r) => r.statement);
    });
    expect(prepared.filter((s) => s.includes('+ 1 AS n'))).toHaveLength(1);
    expect(prepared.filter((s) => s.includes('unmarked'))).toHaveLength(0);
  });

  it('answers a marked query with the same rows as an unmarked one, parameters and errors alike', async () => {
    const marked = await sql<{
      a: string;
      b: Date;
    }>`SELECT ${'x'}::text AS a, ${new Date(0)}::timestamptz AS b ${PREPARED}`.execute(handle.db);
    expect(marked.rows).toEqual([{ a: 'x', b: new Date(0) }]);
    await expect(sql`SELECT 1 / ${0}::int AS boom ${PREPARED}`.execute(handle.db)).rejects.toThrow(/division by zero/);
    // The connection that failed the statement is still usable for it.
    await expect(sql`SELECT 1 / ${1}::int AS boom ${PREPARED}`.execute(handle.db)).resolves.toBeTruthy();
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDbKind } from '../../test/database.ts';
import { compiledQuery } from './compiled-query.ts';
import { type DatabaseHandle, PREPARED, openDatabase } from './db.ts';

/** Hot queries built and compiled once, run with each call's arguments (docs/decisions.md › Hot queries compiled once). */
describe('compiledQuery', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
    await sql`CREATE TABLE compiled_probe (id int PRIMARY KEY, name text NOT NULL)`.execute(handle.db);
    await sql`INSERT INTO compiled_probe VALUES (1, 'one'), (2, 'two')`.execute(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  it('builds and compiles once, then runs with each call’s arguments; constants of the build stay', async () => {
    let builds = 0;
    const query = compiledQuery(handle.db, (a: string, b: number) => {
      builds++;
      return handle.db.selectNoFrom((eb) => [
        eb.cast(eb.val(a), 'text').as('a'),
        eb(eb.cast(eb.val(b), 'integer'), '+', eb.cast(eb.val(40), 'integer')).as('b'),
        eb.cast(eb.val('fixed'), 'text').as('c'),
      ]);
    });
    expect(await query('x', 2)).toEqual([{ a: 'x', b: 42, c: 'fixed' }]);
    expect(await query('y', 3)).toEqual([{ a: 'y', b: 43, c: 'fixed' }]);
    expect(builds).toBe(1);
  });

  it('takes an argument used twice, and raw SQL with a rest parameter and an explicit arity', async () => {
    const query = compiledQuery(
      handle.db,
      (...ids: unknown[]) =>
        sql<{
          name: string;
        }>`SELECT name FROM compiled_probe WHERE id = ${ids[0]}::int OR id = ${ids[1]}::int OR id = ${ids[0]}::int ORDER BY id ${PREPARED}`,
      2,
    );
    expect(await query(1, 2)).toEqual([{ name: 'one' }, { name: 'two' }]);
    expect(await query(2, 99)).toEqual([{ name: 'two' }]);
  });

  it('refuses, on its first run, an argument that does not come out as a parameter', async () => {
    // Turned into SQL text: the first call's value would be frozen into every later run.
    const query = compiledQuery(handle.db, (name: string) => sql`SELECT ${sql.raw(`'${String(name)}'`)} AS n`);
    await expect(query('x')).rejects.toThrow(/argument\(s\) 0 are not parameters/);
  });

  it('on a transaction’s handle, runs inside that transaction', async () => {
    await handle.db
      .transaction()
      .execute(async (trx) => {
        await sql`INSERT INTO compiled_probe VALUES (3, 'three')`.execute(trx);
        const byId = compiledQuery(
          trx,
          (id: number) => sql<{ name: string }>`SELECT name FROM compiled_probe WHERE id = ${id}`,
        );
        expect(await byId(3)).toEqual([{ name: 'three' }]);
        throw new Error('roll back');
      })
      .catch((err: unknown) => {
        if (!(err instanceof Error) || err.message !== 'roll back') throw err;
      });
    const byId = compiledQuery(
      handle.db,
      (id: number) => sql<{ name: string }>`SELECT name FROM compiled_probe WHERE id = ${id}`,
    );
    expect(await byId(3)).toEqual([]);
  });

  it.skipIf(testDbKind !== 'postgres')(
    'keeps the PREPARED mark: prepared once on its connection (PostgreSQL)',
    async () => {
      const statements = await handle.db.connection().execute(async (conn) => {
        const query = compiledQuery(
          conn,
          (id: number) =>
            sql<{ name: string }>`SELECT name AS compiled_mark FROM compiled_probe WHERE id = ${id} ${PREPARED}`,
        );
        for (const id of [1, 2, 1]) expect(await query(id)).toHaveLength(1);
        const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(conn);
        return rows.map((r) => r.statement);
      });
      expect(statements.filter((s) => s.includes('compiled_mark'))).toHaveLength(1);
    },
  );
});

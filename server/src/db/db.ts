import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

const DATE_OID = 1082;
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * One query layer (Kysely) over either embedded PGlite or a PostgreSQL server.
 * PGlite has a single connection: inside `db.transaction()` use only the transaction handle,
 * never `db` (or a service that uses it) — that query would wait for the transaction forever.
 */
export async function openDatabase(target: Config['database']): Promise<DatabaseHandle> {
  if (target.kind === 'pglite') {
    const pglite = await PGlite.create(target.dir ?? undefined, {
      parsers: {
        [DATE_OID]: (v: string) => v,
        [INT8_OID]: (v: string) => Number(v),
        [NUMERIC_OID]: (v: string) => Number(v),
      },
    });
    const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
    return {
      db,
      kind: 'pglite',
      async close() {
        await db.destroy();
        if (!pglite.closed) await pglite.close();
      },
    };
  }
  const pool = new pg.Pool({
    connectionString: target.url,
    max: 20,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
        if (oid === DATE_OID) return (v: string) => v;
        if (oid === INT8_OID || oid === NUMERIC_OID) return (v: string) => Number(v);
        return pg.types.getTypeParser(oid, format);
      }) as typeof pg.types.getTypeParser,
    },
  });
  // A dropped server connection must not crash the process; requests answer 503 meanwhile.
  pool.on('error', () => {});
  // pg-pool listens for errors only on idle clients: a checked-out client whose connection drops
  // (database restart, network cut) would emit an unhandled 'error' and kill the process. Its query
  // still fails (the request answers 503) and the pool discards the broken client on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

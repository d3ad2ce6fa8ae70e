import { type Dialect, type Driver, Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely';
import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import { type Config, PGLITE_SHARED_BUFFERS } from '../config.ts';
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
 * Marks a hot query of fixed shape (`.modifyEnd(PREPARED)`, or at the end of a `sql` template): on
 * PostgreSQL it runs as a named prepared statement, parsed and planned once per connection instead
 * of on every call. Only marked queries: a list whose filters vary keeps PostgreSQL's plan for its
 * own parameters (docs/decisions.md › Prepared statements and sessions from memory). PGlite
 * ignores the mark (a comment).
 */
export const PREPARED = sql.raw('/* prepared */');
const PREPARED_MARK = '/* prepared */';
/** Distinct marked texts named at most (each is prepared once on every pooled connection). */
const MAX_PREPARED = 256;

/** pg's client.query, made to name a marked query: the first call on a connection prepares it. */
function preparing(query: pg.PoolClient['query'], names: Map<string, string>): pg.PoolClient['query'] {
  return ((text: unknown, values: unknown, callback: unknown) => {
    if (typeof text === 'string' && Array.isArray(values) && text.endsWith(PREPARED_MARK)) {
      let name = names.get(text);
      if (!name && names.size < MAX_PREPARED) names.set(text, (name = `medshare_${names.size}`));
      if (name) return query({ name, text, values });
    }
    return (query as (...args: unknown[]) => unknown)(text, values, callback);
  }) as pg.PoolClient['query'];
}

/** Set while a `transaction.run` callback (transactor.ts) runs, in its async context. */
const openTransaction = new AsyncLocalStorage<{ open: boolean }>();

/** Runs `fn` as a transaction's callback: a query on `db` from within it fails at once (see guarded). */
export async function inTransactionScope<T>(fn: () => Promise<T>): Promise<T> {
  const scope = { open: true };
  try {
    return await openTransaction.run(scope, fn);
  } finally {
    // Work the callback started and left running may query `db` once the transaction is over.
    scope.open = false;
  }
}

/**
 * The dialect, with a check before a connection is taken. Queries on a transaction's handle use the
 * connection it holds; only a query on `db` (or a nested transaction) takes one. Inside a
 * transaction's callback that query would wait for ever on PGlite (one connection), and on
 * PostgreSQL run outside the transaction: either way a bug, so it throws instead. With a single
 * connection Kysely would queue for it before asking the driver, so the queue moves here, after
 * the check.
 */
function guarded(dialect: Dialect): Dialect {
  const adapter = dialect.createAdapter();
  const single = adapter.supportsMultipleConnections === false;
  return {
    createAdapter: () => ({
      supportsCreateIfNotExists: adapter.supportsCreateIfNotExists,
      supportsMultipleConnections: true,
      supportsTransactionalDdl: adapter.supportsTransactionalDdl,
      supportsReturning: adapter.supportsReturning,
      supportsOutput: adapter.supportsOutput,
      acquireMigrationLock: (db, options) => adapter.acquireMigrationLock(db, options),
      releaseMigrationLock: (db, options) => adapter.releaseMigrationLock(db, options),
    }),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      let queue: Promise<void> = Promise.resolve();
      let release: (() => void) | undefined;
      return {
        init: (options) => driver.init(options),
        acquireConnection: async (options) => {
          if (openTransaction.getStore()?.open)
            throw new Error('a query on db inside transaction.run: use the repositories the callback is given');
          if (single) {
            const previous = queue;
            let done!: () => void;
            queue = new Promise((resolve) => (done = resolve));
            await previous;
            release = done;
          }
          try {
            return await driver.acquireConnection(options);
          } catch (err) {
            const done = release;
            release = undefined;
            done?.();
            throw err;
          }
        },
        beginTransaction: (connection, settings) => driver.beginTransaction(connection, settings),
        commitTransaction: (connection) => driver.commitTransaction(connection),
        rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
        ...(driver.savepoint && { savepoint: driver.savepoint.bind(driver) }),
        ...(driver.rollbackToSavepoint && { rollbackToSavepoint: driver.rollbackToSavepoint.bind(driver) }),
        ...(driver.releaseSavepoint && { releaseSavepoint: driver.releaseSavepoint.bind(driver) }),
        releaseConnection: async (connection, options) => {
          try {
            await driver.releaseConnection(connection, options);
          } finally {
            const done = release;
            release = undefined;
            done?.();
          }
        },
        destroy: (options) => driver.destroy(options),
      };
    },
  };
}

/**
 * One query layer (Kysely) over either embedded PGlite or a PostgreSQL server.
 * PGlite has a single connection: inside `db.transaction()` use only the transaction handle,
 * never `db` (or a service that uses it) — that query would wait for the transaction forever.
 * Services therefore open transactions only through the port in transactor.ts, whose callbacks
 * cannot be given `db`, and which fail at once if they reach it anyway (guarded).
 */
export async function openDatabase(target: Config['database']): Promise<DatabaseHandle> {
  if (target.kind === 'pglite') {
    // Loaded only here: a server on PostgreSQL never holds PGlite's modules (~6 MiB).
    const { PGlite } = await import('@electric-sql/pglite');
    const pglite = await PGlite.create(target.dir ?? undefined, {
      startParams: [
        ...PGlite.defaultStartParams,
        '-c',
        `shared_buffers=${target.sharedBuffers ?? PGLITE_SHARED_BUFFERS}`,
      ],
      parsers: {
        [DATE_OID]: (v: string) => v,
        [INT8_OID]: (v: string) => Number(v),
        [NUMERIC_OID]: (v: string) => Number(v),
      },
    });
    const db = new Kysely<Database>({ dialect: guarded(new PGliteDialect({ pglite })) });
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
  const preparedNames = new Map<string, string>();
  pool.on('connect', (client) => {
    client.on('error', () => {});
    client.query = preparing(client.query.bind(client), preparedNames);
  });
  const db = new Kysely<Database>({ dialect: guarded(new PostgresDialect({ pool })) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

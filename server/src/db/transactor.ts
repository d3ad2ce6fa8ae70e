import { type Db, inTransactionScope } from './db.ts';

/**
 * The one way a service runs a transaction: `transaction.run((repos) => …)` hands the callback only
 * repositories (and hooks) built on the transaction's handle. PGlite has a single connection, so a
 * query on `db` inside a transaction waits for the transaction's end, which waits for the query:
 * it hangs forever. The callback never sees `db` nor a query handle, so it cannot make that query;
 * `NoQueryHandles` refuses, at compile time, a `reposOf` that would hand one out, and a query on
 * `db` it reaches some other way (a repository or service from the enclosing scope) throws at once
 * (db.ts › guarded) instead of hanging.
 */
export interface Transactor<R> {
  run<T>(fn: (repos: R) => Promise<T>): Promise<T>;
}

/** R, except that a member which is a query handle (`db`, a Transaction) does not type-check. */
export type NoQueryHandles<R> = { [K in keyof R]: R[K] extends Db ? never : R[K] };

/**
 * Built once per service (or in the composition root): `reposOf(trx)` builds the transaction-bound
 * repositories, for each transaction. Commits when `fn` resolves, rolls back when it throws.
 */
export function createTransactor<R extends NoQueryHandles<R>>(db: Db, reposOf: (trx: Db) => R): Transactor<R> {
  return {
    run: (fn) => db.transaction().execute((trx) => inTransactionScope(() => fn(reposOf(trx)))),
  };
}

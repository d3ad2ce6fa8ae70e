import { LIST_MAX_WINDOW, type Pagination } from '@medshare/contracts';
import { type Expression, sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { badRequest } from '../errors.ts';
import { paginationOf } from './envelope.ts';

/**
 * Offset paging reaches only the first `window` matching rows (a deep OFFSET costs every row it
 * skips): a page starting past them is refused with 400 and a field error on `page`.
 */
export function assertInWindow(offset: number, what: string, hint: string, window = LIST_MAX_WINDOW): void {
  if (offset < window) return;
  throw badRequest(`Only the first ${window} ${what} can be paged through; ${hint}`, [
    { field: 'page', message: `Must not go past row ${window}` },
  ]);
}

/** Rows of `rows` (a query returning one row per match), counted up to `cap` only: a LIMITed subquery. */
export async function countUpTo(db: Db, rows: Expression<unknown>, cap: number): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM (${rows} LIMIT ${cap}) t`.execute(db);
  return r.rows[0]?.n ?? 0;
}

/** Pagination of a windowed list from a count taken up to `window + 1`. */
export function windowedPagination(
  page: number,
  pageSize: number,
  counted: number,
  window = LIST_MAX_WINDOW,
): Pagination {
  return { ...paginationOf(page, pageSize, Math.min(counted, window)), totalItemsCapped: counted > window };
}

import { type Expression, type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import { type ChainFields, chainHash } from './audit-chain.ts';

/** A bound of the date filter: a calendar date (in `timeZone`) or an exact instant. */
export type AuditTimeBound = { date: string } | { instant: string };

export interface AuditListFilter {
  /** Only rows whose actor is this user (audit:read_own). */
  actorId: string | null;
  action: string | null;
  /** Lower-cased prefix of the actor's full name, last name, username or e-mail. */
  search: string | null;
  from: AuditTimeBound | null;
  to: AuditTimeBound | null;
  timeZone: string;
}

function auditWhere(f: AuditListFilter): Expression<SqlBool>[] {
  const where: Expression<SqlBool>[] = [];
  if (f.actorId) where.push(sql<SqlBool>`a.user_id = ${f.actorId}`);
  if (f.action) where.push(sql<SqlBool>`a.action_type = ${f.action}`);
  if (f.from) {
    where.push(
      'date' in f.from
        ? sql<SqlBool>`a.created_at >= ((${f.from.date}::date)::timestamp AT TIME ZONE ${f.timeZone})`
        : sql<SqlBool>`a.created_at >= ${f.from.instant}::timestamptz`,
    );
  }
  if (f.to) {
    where.push(
      'date' in f.to
        ? sql<SqlBool>`a.created_at < ((${f.to.date}::date + 1)::timestamp AT TIME ZONE ${f.timeZone})`
        : sql<SqlBool>`a.created_at <= ${f.to.instant}::timestamptz`,
    );
  }
  if (f.search) {
    // The same prefix expressions as the users indexes of migration 0004.
    const p = f.search.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
    where.push(sql<SqlBool>`a.user_id IN (
      SELECT u.id FROM users u WHERE u.deleted_at IS NULL AND (
        lower(u.firstname || ' ' || u.lastname) COLLATE "C" LIKE ${p}
        OR lower(u.lastname) COLLATE "C" LIKE ${p}
        OR lower(u.email) COLLATE "C" LIKE ${p}
        OR lower(u.username) COLLATE "C" LIKE ${p}))`);
  }
  return where;
}

/**
 * Two round trips under the head row's lock: read the head, then insert the row and move the head
 * in one statement (every audited request pays for these, and the lock is held across them).
 */
async function appendIn(trx: Db, fields: Omit<ChainFields, 'createdAt'>): Promise<void> {
  const head = await trx
    .selectFrom('audit_head')
    .select(['last_hash'])
    .where('id', '=', 1)
    .forUpdate()
    .executeTakeFirstOrThrow();
  // Microsecond timestamps from the database would not survive a round trip through Date.
  const createdAt = new Date();
  const hash = chainHash(head.last_hash, { ...fields, createdAt });
  const moved = await trx
    .with('appended', (q) =>
      q
        .insertInto('audit_logs')
        .values({
          created_at: createdAt,
          user_id: fields.userId,
          action_type: fields.actionType,
          table_name: fields.tableName,
          record_id: fields.recordId,
          ip_address: fields.ipAddress,
          status: fields.status,
          reason: fields.reason,
          prev_hash: head.last_hash,
          hash,
        })
        .returning('id'),
    )
    .updateTable('audit_head')
    .set((eb) => ({ last_id: eb.selectFrom('appended').select('id'), last_hash: hash }))
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  if (moved.numUpdatedRows !== 1n) throw new Error('audit head row is missing');
}

export function createAuditRepository(db: Db) {
  return {
    /** Appends one row; the head row's lock orders concurrent appends into one chain. */
    async append(fields: Omit<ChainFields, 'createdAt'>): Promise<void> {
      await db.transaction().execute((trx) => appendIn(trx, fields));
    },

    /**
     * Appends one row inside the caller's transaction (`db` must be a transaction handle), so that
     * an action and its audit row commit together, in one commit instead of two.
     */
    appendInTransaction: (fields: Omit<ChainFields, 'createdAt'>) => appendIn(db, fields),

    /** Rows in chain order, a batch at a time, for verification. */
    listAfter(afterId: number, limit: number, upToId: number = Number.MAX_SAFE_INTEGER) {
      return db
        .selectFrom('audit_logs')
        .selectAll()
        .where('id', '>', afterId)
        .where('id', '<=', upToId)
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    getHead() {
      return db.selectFrom('audit_head').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    },

    /** One page, newest first, with the acting user's name (null when there was none). */
    list(filter: AuditListFilter, offset: number, limit: number) {
      return db
        .selectFrom('audit_logs as a')
        .leftJoin('users as u', 'u.id', 'a.user_id')
        .select([
          'a.id',
          'a.created_at',
          'a.user_id',
          'a.action_type',
          'a.table_name',
          'a.record_id',
          'a.ip_address',
          'a.status',
          'a.reason',
        ])
        .select(['u.firstname', 'u.lastname', 'u.username'])
        .where((eb) => eb.and(auditWhere(filter)))
        .orderBy('a.id', 'desc')
        .offset(offset)
        .limit(limit)
        .execute();
    },

    /** Matching rows, counted up to `cap` only: an exact count over 10^6 rows on every page is too slow. */
    async countUpTo(filter: AuditListFilter, cap: number): Promise<number> {
      const inner = db
        .selectFrom('audit_logs as a')
        .select(sql`1`.as('one'))
        .where((eb) => eb.and(auditWhere(filter)))
        .limit(cap);
      const row = await db
        .selectFrom(inner.as('t'))
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow();
      return row.n;
    },

    /** Distinct action types: a loose index scan over audit_logs_action_idx, not a scan of every row. */
    async actionTypes(actorId: string | null): Promise<string[]> {
      if (actorId) {
        const rows = await db
          .selectFrom('audit_logs')
          .select('action_type')
          .distinct()
          .where('user_id', '=', actorId)
          .orderBy('action_type')
          .execute();
        return rows.map((r) => r.action_type);
      }
      const result = await sql<{ action_type: string }>`
        WITH RECURSIVE t(action_type) AS (
          (SELECT action_type FROM audit_logs ORDER BY action_type LIMIT 1)
          UNION ALL
          SELECT (SELECT a.action_type FROM audit_logs a WHERE a.action_type > t.action_type ORDER BY a.action_type LIMIT 1)
          FROM t WHERE t.action_type IS NOT NULL
        )
        SELECT action_type FROM t WHERE action_type IS NOT NULL`.execute(db);
      return result.rows.map((r) => r.action_type);
    },

    async count(): Promise<number> {
      const r = await db
        .selectFrom('audit_logs')
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow();
      return r.n;
    },
  };
}
export type AuditRepository = ReturnType<typeof createAuditRepository>;

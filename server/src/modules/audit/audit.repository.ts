import { AUDIT_READ_ACTIONS, type AuditCategory } from '@medshare/contracts';
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import { compiledQuery } from '../../db/compiled-query.ts';
import { type Db, PREPARED } from '../../db/db.ts';
import { type ChainFields, chainTail } from './audit-chain.ts';

/** A bound of the date filter: a calendar date (in `timeZone`) or an exact instant. */
export type AuditTimeBound = { date: string } | { instant: string };

export interface AuditListFilter {
  /** Only rows whose actor is this user (audit:read_own). */
  actorId: string | null;
  action: string | null;
  category: AuditCategory | null;
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
  if (f.category === 'refusals') where.push(sql<SqlBool>`a.status = 'failure'`);
  else if (f.category) {
    const reads = sql<SqlBool>`a.action_type = ANY(${[...AUDIT_READ_ACTIONS]}::text[])`;
    where.push(sql<SqlBool>`a.status = 'success'`);
    where.push(f.category === 'reads' ? reads : sql<SqlBool>`NOT (${reads})`);
  }
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
 * Audit rows written by another module's statement: `WITH ${ctes}, <its own CTEs> SELECT …,
 * ${applied} …`. `applied` must be read by the statement's query: it fails the whole statement
 * (nothing commits) if the rows were not appended — a data-modifying CTE that inserts nothing
 * would otherwise let the action commit unaudited.
 */
export interface AuditCtes {
  ctes: RawBuilder<unknown>;
  applied: RawBuilder<boolean>;
}

/**
 * Appends `audit`'s rows through `db`, a transaction's handle: they commit, or roll back, with the
 * action the transaction holds (for a transaction's repositories, `appendAudit`).
 */
export async function appendAuditIn(db: Db, audit: AuditCtes): Promise<void> {
  await sql`WITH ${audit.ctes} SELECT ${audit.applied}`.execute(db);
}

// Not a constant expression, so that the planner does not fold the failing branch ahead of time.
const APPLIED = sql<boolean>`(SELECT CASE WHEN count(*) = 1 THEN true
  ELSE ('audit head row is missing: ' || count(*))::int::boolean END FROM audit_moved)`;

/** As APPLIED, for rows appended only when `when` holds: then exactly one head move, else none. */
const appliedIf = (when: RawBuilder<boolean>) => sql<boolean>`(SELECT CASE
  WHEN count(*) = (CASE WHEN ${when} THEN 1 ELSE 0 END) THEN true
  ELSE ('audit head row is missing: ' || count(*))::int::boolean END FROM audit_moved)`;

/**
 * Top-level CTEs that append `events` to the chain, in order, as part of one statement (its own
 * or another module's: an action and its audit rows then commit together, in one round trip).
 * `audit_h0` locks the head; each `audit_hN` hashes row N onto the hash before it; the database
 * hashes `["<previous hash>",` + the tail that `chainTail` made here, which is exactly
 * `chainHash`'s input, so `audit:verify` recomputes every hash in JavaScript. Rows are inserted
 * in chain order, after the lock is taken, so ids follow the chain when appends race.
 *
 * With `when` (a condition on CTEs written before these, e.g. `EXISTS (SELECT 1 FROM inserted)`),
 * the rows are appended only if it holds: an action that may lose a race (INSERT … ON CONFLICT DO
 * NOTHING) is audited exactly when it happened. The head is then locked only after that CTE ran.
 */
export function auditCtes(events: Omit<ChainFields, 'createdAt'>[], when?: RawBuilder<boolean>): AuditCtes {
  if (!events.length) throw new Error('auditCtes needs at least one event');
  // Microsecond timestamps from the database would not survive a round trip through Date.
  const createdAt = new Date();
  return chainCtes(
    events.map((f) => ({ ...f, createdAt, tail: chainTail({ ...f, createdAt }) })),
    when,
  );
}

/** A row to append as the chain's CTEs take it: its fields, and `tail` = chainTail of them. */
type AppendRow = ChainFields & { tail: string };

/**
 * auditCtes over rows whose tails are made. Each field only ever becomes a parameter of the
 * statement (so its values may be compiledQuery's placeholders: appendStatement).
 */
function chainCtes(events: readonly Record<keyof AppendRow, unknown>[], when?: RawBuilder<boolean>): AuditCtes {
  const ctes: RawBuilder<unknown>[] = [
    when
      ? sql`audit_h0 AS (SELECT last_hash AS hash FROM audit_head WHERE id = 1 AND (${when}) FOR UPDATE)`
      : sql`audit_h0 AS (SELECT last_hash AS hash FROM audit_head WHERE id = 1 FOR UPDATE)`,
  ];
  const rows: RawBuilder<unknown>[] = [];
  events.forEach((f, i) => {
    const prev = sql.raw(`audit_h${i}`);
    const self = sql.raw(`audit_h${i + 1}`);
    ctes.push(sql`${self} AS (
      SELECT ${prev}.hash AS prev, encode(sha256(convert_to('["' || ${prev}.hash || '",' || ${f.tail}::text, 'UTF8')), 'hex') AS hash
      FROM ${prev})`);
    rows.push(sql`SELECT ${i}::int AS ord, ${f.createdAt}::timestamptz, ${f.userId}::uuid, ${f.actionType}::text,
      ${f.tableName}::text, ${f.recordId}::text, ${f.ipAddress}::text, ${f.status}::text, ${f.reason}::text, prev, hash
      FROM ${self}`);
  });
  const last = sql.raw(`audit_h${events.length}`);
  ctes.push(sql`audit_appended AS (
    INSERT INTO audit_logs
      (created_at, user_id, action_type, table_name, record_id, ip_address, status, reason, prev_hash, hash)
    SELECT created_at, user_id, action_type, table_name, record_id, ip_address, status, reason, prev, hash
    FROM (${sql.join(rows, sql` UNION ALL `)}) AS r (ord, created_at, user_id, action_type, table_name, record_id, ip_address, status, reason, prev, hash)
    ORDER BY ord
    RETURNING id)`);
  ctes.push(sql`audit_moved AS (
    UPDATE audit_head SET last_id = (SELECT max(id) FROM audit_appended), last_hash = ${last}.hash
    FROM ${last} WHERE audit_head.id = 1
    RETURNING audit_head.id)`);
  return { ctes: sql.join(ctes, sql`, `), applied: when ? appliedIf(when) : APPLIED };
}

/** The fields of an AppendRow in the order `appendStatement` takes them. */
const APPEND_FIELDS = [
  'tail',
  'createdAt',
  'userId',
  'actionType',
  'tableName',
  'recordId',
  'ipAddress',
  'status',
  'reason',
] as const satisfies readonly (keyof AppendRow)[];

/**
 * The append of `count` rows in one statement (the head's lock is held across it, so it is one
 * round trip), compiled once per batch size (1 to AUDIT_BATCH_MAX rows) and prepared: every read
 * appends. Its arguments are each row's APPEND_FIELDS in turn.
 */
function appendStatement(db: Db, count: number) {
  return compiledQuery(
    db,
    (...values: unknown[]) => {
      const at = (r: number, k: (typeof APPEND_FIELDS)[number]) =>
        values[r * APPEND_FIELDS.length + APPEND_FIELDS.indexOf(k)];
      const rows = Array.from({ length: count }, (_, r) => ({
        tail: at(r, 'tail'),
        createdAt: at(r, 'createdAt'),
        userId: at(r, 'userId'),
        actionType: at(r, 'actionType'),
        tableName: at(r, 'tableName'),
        recordId: at(r, 'recordId'),
        ipAddress: at(r, 'ipAddress'),
        status: at(r, 'status'),
        reason: at(r, 'reason'),
      }));
      const { ctes, applied } = chainCtes(rows);
      return sql<{ applied: boolean }>`WITH ${ctes} SELECT ${applied} AS applied ${PREPARED}`;
    },
    count * APPEND_FIELDS.length,
  );
}

export function createAuditRepository(db: Db) {
  const appends = new Map<number, ReturnType<typeof appendStatement>>();
  return {
    /** Appends rows (one transaction); the head row's lock orders concurrent appends into one chain. */
    async append(rows: Omit<ChainFields, 'createdAt'>[]): Promise<void> {
      if (!rows.length) throw new Error('append needs at least one row');
      // Microsecond timestamps from the database would not survive a round trip through Date.
      const createdAt = new Date();
      const values: unknown[] = [];
      for (const f of rows) {
        const row: AppendRow = { ...f, createdAt, tail: chainTail({ ...f, createdAt }) };
        for (const k of APPEND_FIELDS) values.push(row[k]);
      }
      let statement = appends.get(rows.length);
      if (!statement) appends.set(rows.length, (statement = appendStatement(db, rows.length)));
      await statement(...values);
    },

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

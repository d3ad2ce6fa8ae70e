import {
  AUDIT_MAX_WINDOW,
  type AuditAction,
  type AuditLog,
  type AuditPagination,
  type ListAuditLogsQuery,
} from '@medshare/contracts';
import type { RawBuilder } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../../db/db.ts';
import { type NoQueryHandles, type Transactor, createTransactor } from '../../db/transactor.ts';
import { badRequest, forbidden } from '../../errors.ts';
import { paginationOf } from '../../http/envelope.ts';
import type { Actor } from '../auth/actor.ts';
import { GENESIS_HASH, chainHash } from './audit-chain.ts';
import { auditScope } from './audit-scope.ts';
import {
  type AuditCtes,
  type AuditListFilter,
  type AuditRepository,
  type AuditTimeBound,
  appendAuditIn,
  auditCtes,
} from './audit.repository.ts';

export interface AuditEvent {
  userId: string | null;
  action: AuditAction;
  table?: string | null;
  recordId?: string | null;
  ip?: string | null;
  status?: 'success' | 'failure';
  /** Never PHI, message content or secrets: the audit trail is read by providers too. */
  reason?: string | null;
}

export interface VerifyResult {
  ok: boolean;
  checked: number;
  brokenAt: { id: number; problem: string } | null;
}

const bound = (v: string | undefined): AuditTimeBound | null =>
  v === undefined ? null : /^\d{4}-\d{2}-\d{2}$/.test(v) ? { date: v } : { instant: v };

/** Which rows the actor may read: all with audit:read_all, their own with audit:read_own, else none. */
function scopeOf(actor: Actor): { actorId: string | null } {
  if (actor.permissions.has('audit:read_all')) return { actorId: null };
  if (actor.permissions.has('audit:read_own')) return { actorId: actor.userId };
  throw forbidden();
}

/**
 * A lone UTF-16 surrogate would be stored as U+FFFD while the hash covered its JSON escape, and the
 * row would then fail verification: every text is made well-formed first, so both see U+FFFD.
 */
const text = <T extends string | null | undefined>(v: T): T => (v ? (v.toWellFormed() as T) : v);

const fieldsOf = (event: AuditEvent) => ({
  userId: event.userId,
  actionType: text(event.action),
  tableName: text(event.table) ?? null,
  recordId: text(event.recordId) ?? null,
  ipAddress: text(event.ip) ?? null,
  status: event.status ?? ('success' as const),
  reason: text(event.reason) ?? null,
});

/** Most rows one batched append writes (one statement: a CTE per row). */
export const AUDIT_BATCH_MAX = 64;

/**
 * Group commit for the chain. Every append takes the head row's lock until it commits, so appends
 * from concurrent requests (each content read is one) queue on it one commit at a time. Here, those
 * that arrive while a statement is in flight wait for it and then go together in the next one: one
 * lock, one commit for all of them, and each caller still returns only after its row committed. A
 * batch that fails is retried row by row, so that one bad row fails only its own caller.
 */
export function batchedAppender(append: (rows: ChainRow[]) => Promise<void>, max = AUDIT_BATCH_MAX) {
  let queue: Array<{ row: ChainRow; resolve: () => void; reject: (err: unknown) => void }> = [];
  let inFlight = false;
  const flush = async (): Promise<void> => {
    inFlight = true;
    while (queue.length) {
      const batch = queue.slice(0, max);
      queue = queue.slice(batch.length);
      try {
        await append(batch.map((b) => b.row));
        for (const b of batch) b.resolve();
      } catch (err) {
        if (batch.length === 1) batch[0]!.reject(err);
        else for (const b of batch) await append([b.row]).then(b.resolve, b.reject);
      }
    }
    inFlight = false;
  };
  return {
    append: (row: ChainRow) =>
      new Promise<void>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        if (!inFlight) void flush();
      }),
  };
}
type ChainRow = ReturnType<typeof fieldsOf>;

/** What `transactor` adds to a service's transaction-bound repositories. */
export interface AuditInTransaction {
  audit(events: AuditEvent[]): Promise<void>;
}

export function createAuditService({
  repo,
  log,
  timeZone,
}: {
  repo: AuditRepository;
  log: Logger;
  timeZone: () => Promise<string>;
}) {
  const appender = batchedAppender((rows) => repo.append(rows));
  return {
    /** The audit table: newest first; offset paging within the newest AUDIT_MAX_WINDOW matching rows. */
    async listLogs(actor: Actor, q: ListAuditLogsQuery): Promise<{ items: AuditLog[]; pagination: AuditPagination }> {
      const { actorId } = scopeOf(actor);
      const offset = (q.page - 1) * q.limit;
      if (offset >= AUDIT_MAX_WINDOW) {
        throw badRequest(
          `Only the newest ${AUDIT_MAX_WINDOW} matching rows can be paged through; narrow the date range or filters`,
          [{ field: 'page', message: `Must not go past row ${AUDIT_MAX_WINDOW}` }],
        );
      }
      const filter: AuditListFilter = {
        actorId,
        action: q.action || null,
        category: q.category ?? null,
        search: q.search ? q.search.toLowerCase().replace(/\s+/g, ' ') : null,
        from: bound(q.from),
        to: bound(q.to),
        timeZone: q.from || q.to ? await timeZone() : 'UTC',
      };
      const [rows, counted] = await Promise.all([
        repo.list(filter, offset, q.limit),
        repo.countUpTo(filter, AUDIT_MAX_WINDOW + 1),
      ]);
      const capped = counted > AUDIT_MAX_WINDOW;
      const items: AuditLog[] = rows.map((r) => ({
        id: r.id,
        createAt: r.created_at.toISOString(),
        user:
          r.user_id && r.username !== null
            ? { id: r.user_id, firstname: r.firstname ?? '', lastname: r.lastname ?? '', username: r.username }
            : null,
        actiontype: r.action_type,
        tablename: r.table_name,
        recordId: r.record_id,
        ipaddress: r.ip_address,
        status: r.status,
        reason: r.reason,
      }));
      return {
        items,
        pagination: { ...paginationOf(q.page, q.limit, Math.min(counted, AUDIT_MAX_WINDOW)), totalItemsCapped: capped },
      };
    },

    /** Action types for the filter: every one for audit:read_all, one's own otherwise. */
    async listActions(actor: Actor): Promise<string[]> {
      return repo.actionTypes(scopeOf(actor).actorId);
    },

    /**
     * The events as CTEs for another module's statement: the action and its audit rows commit (or
     * roll back) together, in one round trip. With `when`, they are appended only if it holds
     * (see `auditCtes`).
     */
    inStatement: (events: AuditEvent[], when?: RawBuilder<boolean>): AuditCtes => auditCtes(events.map(fieldsOf), when),

    /**
     * A service's transactor (db/transactor.ts) whose callbacks also get `audit(events)`: the
     * action's audit rows, appended through the transaction, commit or roll back with the change it
     * holds (docs/security.md › Audit trail).
     */
    transactor: <R extends NoQueryHandles<R>>(db: Db, reposOf: (trx: Db) => R): Transactor<R & AuditInTransaction> =>
      // Typed as R for createTransactor's check (which cannot see through R & AuditInTransaction); the
      // added `audit` is a function, not a query handle.
      createTransactor<R>(db, (trx) => ({
        ...reposOf(trx),
        audit: (events: AuditEvent[]) => appendAuditIn(trx, auditCtes(events.map(fieldsOf))),
      })) as Transactor<R & AuditInTransaction>,

    /** Appends one event; resolves once it has committed (with the others of its batch, see `batchedAppender`). */
    record(event: AuditEvent): Promise<void> {
      const scope = auditScope.getStore();
      if (scope && event.status === 'failure') scope.failureRecorded = true;
      return appender.append(fieldsOf(event));
    },

    /** Audit writes that must not fail the request they describe (e.g. a refused login). */
    async recordQuietly(event: AuditEvent): Promise<void> {
      try {
        await this.record(event);
      } catch (err) {
        log.error({ err, action: event.action }, 'audit write failed');
      }
    },

    /** Walks the chain from the start and names the first row that does not fit. */
    async verifyChain(): Promise<VerifyResult> {
      // The head first: a row and its head update commit together, so every row up to the head's
      // last id is visible, and rows appended while the walk runs (live servers) are not mistaken
      // for a tampered tail.
      const head = await repo.getHead();
      let prev = GENESIS_HASH;
      let lastId = 0;
      let checked = 0;
      for (;;) {
        const rows = await repo.listAfter(lastId, 1000, head.last_id);
        for (const row of rows) {
          checked++;
          if (row.prev_hash !== prev) {
            return {
              ok: false,
              checked,
              brokenAt: {
                id: row.id,
                problem: 'prev_hash does not match the previous row (a row before it was removed or changed)',
              },
            };
          }
          const expected = chainHash(prev, {
            createdAt: row.created_at,
            userId: row.user_id,
            actionType: row.action_type,
            tableName: row.table_name,
            recordId: row.record_id,
            ipAddress: row.ip_address,
            status: row.status,
            reason: row.reason,
          });
          if (expected !== row.hash) {
            return {
              ok: false,
              checked,
              brokenAt: { id: row.id, problem: 'row content does not match its hash (the row was edited)' },
            };
          }
          prev = row.hash;
          lastId = row.id;
        }
        if (rows.length < 1000) break;
      }
      if (head.last_id !== lastId || head.last_hash !== prev) {
        return {
          ok: false,
          checked,
          brokenAt: {
            id: head.last_id,
            problem: `the chain ends at row ${lastId} but the head records row ${head.last_id} (rows at the end were removed)`,
          },
        };
      }
      return { ok: true, checked, brokenAt: null };
    },
  };
}
export type AuditService = ReturnType<typeof createAuditService>;

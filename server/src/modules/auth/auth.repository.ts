import type { RoleName } from '@medshare/contracts';
import { sql } from 'kysely';
import { type Db, PREPARED } from '../../db/db.ts';
import type { CodePurpose } from '../../db/schema.ts';

export function createAuthRepository(db: Db) {
  /** One of a code's try counters taken atomically while under `max`; its new value, null when spent. */
  async function takeTry(
    codeId: string,
    counter: 'attempts' | 'foreign_attempts',
    max: number,
  ): Promise<number | null> {
    const row = await db
      .updateTable('one_time_codes')
      .set((eb) => ({ [counter]: eb(counter, '+', 1) }))
      .where('id', '=', codeId)
      .where(counter, '<', max)
      .where('consumed_at', 'is', null)
      .returning(counter)
      .executeTakeFirst();
    return row ? (row as Record<typeof counter, number>)[counter] : null;
  }

  return {
    createSession: (s: { id: string; userId: string; expiresAt: Date; ip: string | null; userAgent: string | null }) =>
      db
        .insertInto('sessions')
        .values({
          id: s.id,
          user_id: s.userId,
          last_seen_at: new Date(),
          expires_at: s.expiresAt,
          ip: s.ip,
          user_agent: s.userAgent,
        })
        .execute(),

    getSession: (id: string) => db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst(),

    /**
     * A session with what authentication needs of its user (null columns when the account is
     * deleted), in one round trip: every authenticated request runs this.
     */
    getSessionForAuth: (id: string) =>
      db
        .selectFrom('sessions as s')
        .leftJoin('users as u', (j) => j.onRef('u.id', '=', 's.user_id').on('u.deleted_at', 'is', null))
        .leftJoin('roles as r', 'r.id', 'u.role_id')
        .select(['s.id', 's.user_id', 's.expires_at', 's.last_seen_at', 's.revoked_at'])
        .select(['u.id as live_user_id', 'u.active', 'u.approved_at', sql<RoleName | null>`r.name`.as('role')])
        .where('s.id', '=', id)
        .modifyEnd(PREPARED)
        .executeTakeFirst(),

    touchSession: (id: string, at: Date) =>
      db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).modifyEnd(PREPARED).execute(),

    revokeSession: (id: string, reason: string) =>
      db
        .updateTable('sessions')
        .set({ revoked_at: new Date(), revoked_reason: reason })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute(),

    revokeUserSessions: (userId: string, reason: string) =>
      db
        .updateTable('sessions')
        .set({ revoked_at: new Date(), revoked_reason: reason })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .execute(),

    /** Issues a code and retires every earlier open code of the same purpose: only the newest works. */
    /**
     * Locks a live account's row to the end of the transaction, so that one code is issued at a time
     * per account; false when the account is gone. `FOR NO KEY UPDATE`, not `FOR UPDATE`: rows that
     * point at the account (a share to it, a session, a code) take a key-share lock on it, and under
     * `FOR UPDATE` a share made while the reset mail was being sent deadlocked with it on the audit
     * head.
     */
    lockAccount: async (userId: string): Promise<boolean> =>
      (await sql`SELECT id FROM users WHERE id = ${userId}::uuid AND deleted_at IS NULL FOR NO KEY UPDATE`.execute(db))
        .rows.length > 0,

    /**
     * Uses up every open code of the account (after a password reset, codes issued before it end),
     * or of one purpose (a code used: another of it, a resend's still in the mail, ends with it).
     */
    retireCodes: (userId: string, purpose?: CodePurpose) =>
      db
        .updateTable('one_time_codes')
        .set({ consumed_at: new Date() })
        .where('user_id', '=', userId)
        .$if(purpose !== undefined, (q) => q.where('purpose', '=', purpose!))
        .where('consumed_at', 'is', null)
        .execute(),

    /**
     * A new code of the purpose; the account's earlier open ones end with it, unless `keepEarlier`:
     * a code still to be mailed, which counts for the limits but is not checked until `codeMailed`
     * (or is deleted, `deleteCode`, if its mail cannot go out).
     */
    async issueCode(c: {
      userId: string;
      purpose: CodePurpose;
      codeHash: string;
      tokenHash: string | null;
      expiresAt: Date;
      /** Hash of the address block the code goes to (`codeAddress`); null: any address is the owner's. */
      issuedTo?: string | null;
      keepEarlier?: boolean;
    }): Promise<string> {
      if (!c.keepEarlier)
        await db
          .updateTable('one_time_codes')
          .set({ consumed_at: new Date() })
          .where('user_id', '=', c.userId)
          .where('purpose', '=', c.purpose)
          .where('consumed_at', 'is', null)
          .execute();
      const row = await db
        .insertInto('one_time_codes')
        .values({
          user_id: c.userId,
          purpose: c.purpose,
          code_hash: c.codeHash,
          token_hash: c.tokenHash,
          expires_at: c.expiresAt,
          issued_to: c.issuedTo ?? null,
          awaiting_mail: c.keepEarlier ?? false,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    /**
     * A code's mail has left: it is the one checked from now on, and the account's open codes of the
     * purpose issued before it end (not a later one: a resend racing this one).
     */
    async codeMailed(userId: string, purpose: CodePurpose, codeId: string): Promise<void> {
      await db.updateTable('one_time_codes').set({ awaiting_mail: false }).where('id', '=', codeId).execute();
      await sql`UPDATE one_time_codes SET consumed_at = now()
        WHERE user_id = ${userId}::uuid AND purpose = ${purpose} AND consumed_at IS NULL AND id <> ${codeId}::uuid
          AND (created_at, id) < (SELECT created_at, id FROM one_time_codes WHERE id = ${codeId}::uuid)`.execute(db);
    },

    /** A code whose mail could not go out: nobody has it, and it must not count as sent. */
    deleteCode: (codeId: string) => db.deleteFrom('one_time_codes').where('id', '=', codeId).execute(),

    /** The newest code of the purpose, mailed or not (the limits: one a minute, so many an hour). */
    latestCode: (userId: string, purpose: CodePurpose) =>
      db
        .selectFrom('one_time_codes')
        .selectAll()
        .where('user_id', '=', userId)
        .where('purpose', '=', purpose)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst(),

    /** The newest code of the purpose whose mail has left: the one a try is checked against. */
    latestMailedCode: (userId: string, purpose: CodePurpose) =>
      db
        .selectFrom('one_time_codes')
        .selectAll()
        .where('user_id', '=', userId)
        .where('purpose', '=', purpose)
        .where('awaiting_mail', '=', false)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst(),

    async countCodesSince(userId: string, purpose: CodePurpose, since: Date): Promise<number> {
      const row = await db
        .selectFrom('one_time_codes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('purpose', '=', purpose)
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    openCodeByToken: (tokenHash: string) =>
      db
        .selectFrom('one_time_codes')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .where('purpose', '=', 'reset')
        .where('awaiting_mail', '=', false)
        .where('consumed_at', 'is', null)
        .where('expires_at', '>', new Date())
        .executeTakeFirst(),

    /** Takes one try atomically, so parallel guesses cannot exceed the limit. Null when none is left. */
    takeAttempt: (codeId: string, maxAttempts: number) => takeTry(codeId, 'attempts', maxAttempts),

    /** Counts a try from an address the code was not issued to; null when their budget is spent. */
    takeForeignAttempt: (codeId: string, maxAttempts: number) => takeTry(codeId, 'foreign_attempts', maxAttempts),

    /** Single use: only the first caller gets true. */
    async consumeCode(codeId: string): Promise<boolean> {
      const row = await db
        .updateTable('one_time_codes')
        .set({ consumed_at: new Date() })
        .where('id', '=', codeId)
        .where('consumed_at', 'is', null)
        .returning('id')
        .executeTakeFirst();
      return row !== undefined;
    },

    async rolePermissions(): Promise<Map<string, Set<string>>> {
      const rows = await db
        .selectFrom('role_permissions')
        .innerJoin('roles', 'roles.id', 'role_permissions.role_id')
        .innerJoin('permissions', 'permissions.id', 'role_permissions.permission_id')
        .select(['roles.name as role', 'permissions.name as permission'])
        .execute();
      const map = new Map<string, Set<string>>();
      for (const r of rows) {
        if (!map.has(r.role)) map.set(r.role, new Set());
        map.get(r.role)!.add(r.permission);
      }
      return map;
    },
  };
}
export type AuthRepository = ReturnType<typeof createAuthRepository>;
/** What `authenticate` reads of a session and its user. */
export type SessionForAuth = NonNullable<Awaited<ReturnType<AuthRepository['getSessionForAuth']>>>;

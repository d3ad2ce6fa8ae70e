import type { RoleName } from '@medshare/contracts';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import { countUpTo } from '../../http/list-window.ts';
import type { Database } from '../../db/schema.ts';

export interface MessageRow {
  id: number;
  sender_id: string;
  recipient_id: string;
  key_id: string;
  nonce: Uint8Array;
  ciphertext: Uint8Array;
  created_at: Date;
  read_at: Date | null;
}

export interface PartnerRow {
  id: string;
  firstname: string;
  lastname: string;
  email: string;
  role: RoleName;
  active: boolean;
  approved_at: Date | null;
}

/** `%` and `_` typed by a user match themselves, not anything. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const messageColumns = [
  'id',
  'sender_id',
  'recipient_id',
  'key_id',
  'nonce',
  'ciphertext',
  'created_at',
  'read_at',
] as const;

export function createMessagesRepository(db: Db) {
  /** Users a message may go to: active, approved, not deleted, holding `permission` (messages:send). */
  const reachableUsers = (permission: string) =>
    db
      .selectFrom('users')
      .innerJoin('roles', 'roles.id', 'users.role_id')
      .where('users.active', '=', true)
      .where('users.approved_at', 'is not', null)
      .where('users.deleted_at', 'is', null)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('role_permissions')
            .innerJoin('permissions', 'permissions.id', 'role_permissions.permission_id')
            .whereRef('role_permissions.role_id', '=', 'users.role_id')
            .where('permissions.name', '=', permission),
        ),
      );

  return {
    getUser: (id: string): Promise<PartnerRow | undefined> =>
      db
        .selectFrom('users')
        .innerJoin('roles', 'roles.id', 'users.role_id')
        .select([
          'users.id',
          'users.firstname',
          'users.lastname',
          'users.email',
          sql<RoleName>`roles.name`.as('role'),
          'users.active',
          'users.approved_at',
        ])
        .where('users.id', '=', id)
        .where('users.deleted_at', 'is', null)
        .executeTakeFirst(),

    /**
     * Serialises every message write that involves either user (sorted, so two sends never wait
     * on each other in opposite order). Held to commit: for each user, id order is commit order.
     */
    async lockParticipants(a: string, b: string): Promise<void> {
      for (const id of [a, b].sort())
        await sql`select pg_advisory_xact_lock(hashtextextended(${'message:' + id}, 0))`.execute(db);
    },

    async nextMessageId(): Promise<number> {
      const row = await sql<{
        id: number;
      }>`select nextval(pg_get_serial_sequence('messages', 'id'))::bigint as id`.execute(db);
      return Number(row.rows[0]!.id);
    },

    insertMessage: (m: {
      id: number;
      senderId: string;
      recipientId: string;
      keyId: string;
      nonce: Uint8Array;
      ciphertext: Uint8Array;
      createdAt: Date;
    }) =>
      db
        .insertInto('messages')
        .values({
          id: m.id,
          sender_id: m.senderId,
          recipient_id: m.recipientId,
          key_id: m.keyId,
          nonce: m.nonce,
          ciphertext: m.ciphertext,
          created_at: m.createdAt,
        })
        .execute(),

    /** Both sides of the conversation point at the new message; only the recipient's unread count grows. */
    async touchConversations(senderId: string, recipientId: string, messageId: number): Promise<void> {
      await db
        .insertInto('conversations')
        .values([
          { owner_id: senderId, partner_id: recipientId, last_message_id: messageId, unread_count: 0 },
          { owner_id: recipientId, partner_id: senderId, last_message_id: messageId, unread_count: 1 },
        ])
        .onConflict((oc) =>
          oc.columns(['owner_id', 'partner_id']).doUpdateSet((eb) => ({
            last_message_id: eb.ref('excluded.last_message_id'),
            unread_count: eb('conversations.unread_count', '+', eb.ref('excluded.unread_count')),
          })),
        )
        .execute();
    },

    countConversations: async (ownerId: string): Promise<number> => {
      const row = await db
        .selectFrom('conversations as c')
        .innerJoin('users as u', 'u.id', 'c.partner_id')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('c.owner_id', '=', ownerId)
        .where('u.deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      return row.n;
    },

    /** The caller's conversations, most recent first, with the partner and the last message row. */
    listConversations: (ownerId: string, limit: number, offset: number) =>
      db
        .selectFrom('conversations as c')
        .innerJoin('messages as m', 'm.id', 'c.last_message_id')
        .innerJoin('users as u', 'u.id', 'c.partner_id')
        .innerJoin('roles as r', 'r.id', 'u.role_id')
        .select([
          'c.partner_id',
          'c.unread_count',
          'u.firstname',
          'u.lastname',
          sql<RoleName>`r.name`.as('role'),
          'm.id',
          'm.sender_id',
          'm.recipient_id',
          'm.key_id',
          'm.nonce',
          'm.ciphertext',
          'm.created_at',
          'm.read_at',
        ])
        .where('c.owner_id', '=', ownerId)
        .where('u.deleted_at', 'is', null)
        .orderBy('c.last_message_id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),

    hasConversation: async (ownerId: string, partnerId: string): Promise<boolean> =>
      !!(await db
        .selectFrom('conversations')
        .select('owner_id')
        .where('owner_id', '=', ownerId)
        .where('partner_id', '=', partnerId)
        .executeTakeFirst()),

    /** One page of the thread between two users, newest first (keyset on id). */
    listThread: (a: string, b: string, before: number | undefined, limit: number): Promise<MessageRow[]> => {
      const [lo, hi] = [a, b].sort() as [string, string];
      let q = db
        .selectFrom('messages')
        .select(messageColumns)
        .where(sql<SqlBool>`least(sender_id, recipient_id) = ${lo}::uuid`)
        .where(sql<SqlBool>`greatest(sender_id, recipient_id) = ${hi}::uuid`);
      if (before !== undefined) q = q.where('id', '<', before);
      return q.orderBy('id', 'desc').limit(limit).execute();
    },

    /** Messages sent or received by a user after an id, oldest first (stream replay). */
    listAfter: (userId: string, afterId: number, limit: number): Promise<MessageRow[]> =>
      db
        .selectFrom('messages')
        .select(messageColumns)
        .where((eb) => eb.or([eb('sender_id', '=', userId), eb('recipient_id', '=', userId)]))
        .where('id', '>', afterId)
        .orderBy('id', 'asc')
        .limit(limit)
        .execute(),

    latestIdFor: async (userId: string): Promise<number> => {
      const row = await db
        .selectFrom('messages')
        .select(sql<number | null>`max(id)`.as('id'))
        .where((eb) => eb.or([eb('sender_id', '=', userId), eb('recipient_id', '=', userId)]))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    getMessage: (id: number): Promise<MessageRow | undefined> =>
      db.selectFrom('messages').select(messageColumns).where('id', '=', id).executeTakeFirst(),

    /** Marks the partner's unread messages to the reader as read; returns how many and the newest id. */
    async markRead(readerId: string, senderId: string, readAt: Date): Promise<{ count: number; upToId: number }> {
      const rows = await db
        .updateTable('messages')
        .set({ read_at: readAt })
        .where('recipient_id', '=', readerId)
        .where('sender_id', '=', senderId)
        .where('read_at', 'is', null)
        .returning('id')
        .execute();
      await db
        .updateTable('conversations')
        .set({ unread_count: 0 })
        .where('owner_id', '=', readerId)
        .where('partner_id', '=', senderId)
        .execute();
      return { count: rows.length, upToId: rows.reduce((max, r) => Math.max(max, Number(r.id)), 0) };
    },

    unreadIn: async (ownerId: string, partnerId: string): Promise<number> => {
      const row = await db
        .selectFrom('conversations')
        .select('unread_count')
        .where('owner_id', '=', ownerId)
        .where('partner_id', '=', partnerId)
        .executeTakeFirst();
      return row?.unread_count ?? 0;
    },

    totalUnread: async (ownerId: string): Promise<number> => {
      const row = await db
        .selectFrom('conversations as c')
        .innerJoin('users as u', 'u.id', 'c.partner_id')
        .select(sql<number>`coalesce(sum(c.unread_count), 0)::int`.as('n'))
        .where('c.owner_id', '=', ownerId)
        .where('u.deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      return row.n;
    },

    /**
     * People the caller may write to, found by name or e-mail; `onlyHolding` narrows to holders of a
     * permission. With `emailsOfContactsOnly`, an e-mail is answered (and searched) only for people
     * the caller already shares a conversation or an image with; others get null.
     */
    async searchRecipients(opts: {
      callerId: string;
      permission: string;
      onlyHolding: string | null;
      emailsOfContactsOnly: boolean;
      search: string | undefined;
      limit: number;
      offset: number;
      /** Matches are counted up to this many only (the list's window plus one). */
      countCap: number;
    }) {
      const caller = opts.callerId;
      const contact = sql<SqlBool>`(
        EXISTS (SELECT 1 FROM conversations c WHERE c.owner_id = ${caller} AND c.partner_id = users.id)
        OR EXISTS (SELECT 1 FROM images i
          WHERE i.uploader_id = users.id AND i.patient_id = ${caller} AND i.deleted_at IS NULL)
        OR EXISTS (SELECT 1 FROM shares s WHERE s.revoked_at IS NULL
          AND ((s.created_for = ${caller} AND s.created_by = users.id)
            OR (s.created_for = users.id AND s.created_by = ${caller}))))`;
      const email = opts.emailsOfContactsOnly
        ? sql<string | null>`CASE WHEN ${contact} THEN users.email END`
        : sql<string | null>`users.email`;
      const filter = (eb: ExpressionBuilder<Database, 'users' | 'roles'>): Expression<SqlBool> => {
        const conditions: Expression<SqlBool>[] = [eb('users.id', '!=', opts.callerId)];
        if (opts.onlyHolding) {
          conditions.push(
            eb.exists(
              eb
                .selectFrom('role_permissions as rp2')
                .innerJoin('permissions as p2', 'p2.id', 'rp2.permission_id')
                .whereRef('rp2.role_id', '=', 'users.role_id')
                .where('p2.name', '=', opts.onlyHolding),
            ),
          );
        }
        if (opts.search) {
          const pattern = likePattern(opts.search);
          conditions.push(
            eb.or([
              eb('users.firstname', 'ilike', pattern),
              eb('users.lastname', 'ilike', pattern),
              opts.emailsOfContactsOnly
                ? eb.and([eb('users.email', 'ilike', pattern), contact])
                : eb('users.email', 'ilike', pattern),
              eb(sql`users.firstname || ' ' || users.lastname`, 'ilike', pattern),
            ]),
          );
        }
        return eb.and(conditions);
      };
      const base = reachableUsers(opts.permission).where(filter);
      const [rows, count] = await Promise.all([
        base
          .select([
            'users.id',
            'users.firstname',
            'users.lastname',
            email.as('email'),
            sql<RoleName>`roles.name`.as('role'),
          ])
          .orderBy('users.firstname')
          .orderBy('users.lastname')
          .orderBy('users.id')
          .limit(opts.limit)
          .offset(opts.offset)
          .execute(),
        countUpTo(db, base.select('users.id'), opts.countCap),
      ]);
      return { rows, counted: count };
    },

    /** What an open stream needs to know about its session, without counting as activity. */
    sessionState: (sessionId: string) =>
      db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select([
          's.user_id',
          's.revoked_at',
          's.expires_at',
          's.last_seen_at',
          'u.active',
          'u.approved_at',
          'u.deleted_at',
        ])
        .where('s.id', '=', sessionId)
        .executeTakeFirst(),
  };
}
export type MessagesRepository = ReturnType<typeof createMessagesRepository>;

import {
  LIST_MAX_WINDOW,
  SEARCH_MAX_WINDOW,
  type ChatListEntry,
  type ChatQuery,
  type MarkReadResponseData,
  type Message,
  type MessageRecipient,
  MessageTexts,
  type Pagination,
  type PermissionName,
  type RoleName,
  type SendMessageBody,
} from '@medshare/contracts';
import type { FieldEncryption } from '../../crypto/field-encryption.ts';
import type { Db } from '../../db/db.ts';
import { forbidden, notFound, validationFailed } from '../../errors.ts';
import { paginationOf } from '../../http/envelope.ts';
import { assertInWindow, windowedPagination } from '../../http/list-window.ts';
import type { EventBus } from '../../realtime/event-bus.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { type MessageRow, type PartnerRow, createMessagesRepository } from './messages.repository.ts';

const SEND: PermissionName = 'messages:send';
/**
 * Who may start a conversation with whom, said with permissions rather than role names: whoever
 * may read the user directory (providers, admins) may write to anyone who can receive messages;
 * everyone else (patients) only to those directory readers — the care team.
 */
const DIRECTORY: PermissionName = 'users:read';

interface Deps {
  db: Db;
  audit: AuditService;
  settings: SettingsService;
  encryption: FieldEncryption;
  bus: EventBus;
  permissionsOf: (role: RoleName) => Promise<ReadonlySet<PermissionName>>;
}

/** Binds a ciphertext to its row: copied into another row or conversation it no longer opens. */
const contentAad = (id: number, senderId: string, recipientId: string) =>
  `medshare:message:v1:${id}:${senderId}:${recipientId}`;

export function createMessagesService({ db, audit, settings, encryption, bus, permissionsOf }: Deps) {
  const repo = createMessagesRepository(db);
  /** A send's audit row, committed with the message (docs/security.md › Audit trail). */
  const transaction = audit.transactor(db, (trx) => ({ messages: createMessagesRepository(trx) }));

  function requireSend(actor: Actor) {
    if (!actor.permissions.has(SEND)) throw forbidden();
  }

  async function present(row: MessageRow): Promise<Message> {
    const content = await encryption.open(
      { keyId: row.key_id, nonce: row.nonce, ciphertext: row.ciphertext },
      contentAad(Number(row.id), row.sender_id, row.recipient_id),
    );
    return {
      id: Number(row.id),
      senderId: row.sender_id,
      recipientId: row.recipient_id,
      content,
      createAt: row.created_at.toISOString(),
      readAt: row.read_at ? row.read_at.toISOString() : null,
    };
  }

  /** Whether the caller may write to this user now; unknown and unreachable users look the same. */
  async function mayWriteTo(actor: Actor, target: PartnerRow | undefined): Promise<boolean> {
    if (!target || target.id === actor.userId || !target.active || target.approved_at === null) return false;
    const theirs = await permissionsOf(target.role);
    if (!theirs.has(SEND)) return false;
    return actor.permissions.has(DIRECTORY) || theirs.has(DIRECTORY);
  }

  /** A chat is visible when it has history or could be started; anything else is not found. */
  async function requireChat(actor: Actor, partnerId: string): Promise<void> {
    if (partnerId === actor.userId) throw notFound(MessageTexts.chatNotFound);
    if (await repo.hasConversation(actor.userId, partnerId)) return;
    if (!(await mayWriteTo(actor, await repo.getUser(partnerId)))) throw notFound(MessageTexts.chatNotFound);
  }

  return {
    async sendMessage(actor: Actor, body: SendMessageBody): Promise<Message> {
      requireSend(actor);
      if (body.recipientId === actor.userId)
        throw validationFailed([{ field: 'recipientId', message: MessageTexts.selfMessage }]);
      const target = await repo.getUser(body.recipientId);
      if (!(await mayWriteTo(actor, target))) throw notFound(MessageTexts.recipientNotFound);
      const senderId = actor.userId;
      // The id as the database spells it: it is sealed into the message and keys its locks and events.
      const recipientId = target!.id;
      const createdAt = new Date();
      const id = await transaction.run(async ({ messages: tx, audit: auditInTx }) => {
        await tx.lockParticipants(senderId, recipientId);
        const messageId = await tx.nextMessageId();
        const sealed = encryption.seal(body.content, contentAad(messageId, senderId, recipientId));
        await tx.insertMessage({
          id: messageId,
          senderId,
          recipientId,
          keyId: sealed.keyId,
          nonce: sealed.nonce,
          ciphertext: sealed.ciphertext,
          createdAt,
        });
        await tx.touchConversations(senderId, recipientId, messageId);
        await auditInTx([
          { userId: senderId, action: 'message.send', table: 'messages', recordId: String(messageId), ip: actor.ip },
        ]);
        return messageId;
      });
      bus.publish({ type: 'message', userIds: [senderId, recipientId], messageId: id });
      return { id, senderId, recipientId, content: body.content, createAt: createdAt.toISOString(), readAt: null };
    },

    async listChats(
      actor: Actor,
      page: number,
      limit: number,
    ): Promise<{ items: ChatListEntry[]; pagination: Pagination }> {
      requireSend(actor);
      const [total, rows] = [
        await repo.countConversations(actor.userId),
        await repo.listConversations(actor.userId, limit, (page - 1) * limit),
      ];
      const items: ChatListEntry[] = [];
      for (const row of rows) {
        const last = await present(row);
        items.push({
          id: row.partner_id,
          firstname: row.firstname,
          lastname: row.lastname,
          role: row.role,
          lastMessage: { id: last.id, content: last.content, createAt: last.createAt, senderId: last.senderId },
          unreadCount: row.unread_count,
        });
      }
      // The list shows each partner's last message: a read of what others wrote, counted.
      if (items.length) {
        await audit.record({
          userId: actor.userId,
          action: 'message.chats.read',
          table: 'messages',
          ip: actor.ip,
          reason: `chats=${items.length} page=${page}`,
        });
      }
      return { items, pagination: paginationOf(page, limit, total) };
    },

    /** One page of the thread, oldest to newest; `nextBefore` pages further back. */
    async getChat(actor: Actor, partnerId: string, query: ChatQuery) {
      requireSend(actor);
      await requireChat(actor, partnerId);
      const rows = await repo.listThread(actor.userId, partnerId, query.before, query.limit + 1);
      const hasOlder = rows.length > query.limit;
      const page = rows.slice(0, query.limit).reverse();
      const messages = await Promise.all(page.map(present));
      await audit.record({
        userId: actor.userId,
        action: 'message.thread.read',
        table: 'messages',
        recordId: partnerId,
        ip: actor.ip,
        reason: `messages=${messages.length}${query.before !== undefined ? ' older' : ''}`,
      });
      return { messages, cursor: { limit: query.limit, hasOlder, nextBefore: hasOlder ? messages[0]!.id : null } };
    },

    async markChatRead(actor: Actor, partnerId: string): Promise<MarkReadResponseData> {
      requireSend(actor);
      await requireChat(actor, partnerId);
      const readAt = new Date();
      const { count, upToId } = await transaction.run(async ({ messages: tx }) => {
        await tx.lockParticipants(actor.userId, partnerId);
        return tx.markRead(actor.userId, partnerId, readAt);
      });
      if (count > 0) {
        bus.publish({
          type: 'read',
          userIds: [actor.userId, partnerId],
          read: { readerId: actor.userId, senderId: partnerId, upToId, readAt: readAt.toISOString() },
        });
      }
      return {
        marked: count,
        unreadCount: await repo.unreadIn(actor.userId, partnerId),
        totalUnread: await repo.totalUnread(actor.userId),
      };
    },

    async listRecipients(
      actor: Actor,
      query: { page: number; limit: number; search?: string | undefined },
    ): Promise<{ items: MessageRecipient[]; pagination: Pagination }> {
      requireSend(actor);
      // A directory is for finding someone: pages reach only the first matches, counted that far
      // (as the users list: docs/architecture.md › API conventions, "Long lists").
      const window = query.search ? SEARCH_MAX_WINDOW : LIST_MAX_WINDOW;
      const offset = (query.page - 1) * query.limit;
      assertInWindow(
        offset,
        'people',
        query.search ? 'refine the search.' : 'search by name to narrow the list.',
        window,
      );
      const { rows, counted } = await repo.searchRecipients({
        callerId: actor.userId,
        permission: SEND,
        onlyHolding: actor.permissions.has(DIRECTORY) ? null : DIRECTORY,
        // Patients see the care team's names and roles; an e-mail only of someone they already deal with.
        emailsOfContactsOnly: !actor.permissions.has(DIRECTORY),
        search: query.search || undefined,
        limit: query.limit,
        offset,
        countCap: window + 1,
      });
      await audit.record({
        userId: actor.userId,
        action: 'message.recipients.read',
        table: 'users',
        ip: actor.ip,
        reason: `listed=${rows.length} page=${query.page}${query.search ? ' search' : ''}`,
      });
      return { items: rows, pagination: windowedPagination(query.page, query.limit, counted, window) };
    },

    /** Where a new stream starts: the client's last seen id (never past the newest), else now. */
    async streamStart(actor: Actor, since: number | undefined): Promise<number> {
      requireSend(actor);
      const latest = await repo.latestIdFor(actor.userId);
      return since === undefined ? latest : Math.min(since, latest);
    },

    /**
     * The caller's messages (sent or received) after an id, oldest first: what their stream writes,
     * live or replayed from `since` (which may reach back to the first message). What others wrote is
     * a read, audited before it leaves, as a thread's page is; one's own echoes are not.
     */
    async messagesAfter(actor: Actor, afterId: number, limit: number): Promise<Message[]> {
      const rows = await repo.listAfter(actor.userId, afterId, limit);
      const messages = await Promise.all(rows.map(present));
      const fromOthers = rows.filter((r) => r.sender_id !== actor.userId).length;
      if (fromOthers > 0) {
        await audit.record({
          userId: actor.userId,
          action: 'message.thread.read',
          table: 'messages',
          ip: actor.ip,
          reason: `stream messages=${fromOthers} after=${afterId}`,
        });
      }
      return messages;
    },

    /**
     * Why an open stream must end (null while its session is good). Reads the session without
     * touching it: an open stream is not activity, so the idle timeout still applies.
     */
    async streamEndReason(actor: Actor): Promise<string | null> {
      const s = await repo.sessionState(actor.sessionId);
      const now = Date.now();
      if (!s || s.user_id !== actor.userId || s.revoked_at) return 'session_revoked';
      if (s.expires_at.getTime() <= now) return 'token_expired';
      const { sessionIdleMinutes } = await settings.effective();
      if (now - s.last_seen_at.getTime() > sessionIdleMinutes * 60_000) return 'session_idle';
      if (!s.active || s.approved_at === null || s.deleted_at) return 'account_inactive';
      return null;
    },
  };
}
export type MessagesService = ReturnType<typeof createMessagesService>;

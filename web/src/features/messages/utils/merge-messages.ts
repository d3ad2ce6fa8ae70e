import type { ChatListEntry, Message, ReadEvent } from '@medshare/contracts';

/**
 * One thread out of pages, live events and sent answers: unique by id (the newer copy wins, so a
 * read receipt's `readAt` sticks), ordered by id, which the server assigns in commit order. A
 * message replayed after a reconnect, or delivered both by the send answer and the stream, appears
 * once.
 */
export function mergeMessages(current: readonly Message[], incoming: readonly Message[]): Message[] {
  if (incoming.length === 0) return current as Message[];
  const byId = new Map<number, Message>();
  for (const m of current) byId.set(m.id, m);
  let changed = false;
  for (const m of incoming) {
    const old = byId.get(m.id);
    if (old && old.content === m.content && old.readAt === (m.readAt ?? old.readAt)) continue;
    // A late copy without a read time must not erase one we already know.
    byId.set(m.id, old && !m.readAt ? { ...m, readAt: old.readAt } : m);
    changed = true;
  }
  if (!changed) return current as Message[];
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** The other person in a message, seen from `meId`. */
export const partnerOf = (m: Message, meId: string) => (m.senderId === meId ? m.recipientId : m.senderId);

/** Whether a message belongs to the thread between `meId` and `partnerId`. */
export const inThread = (m: Message, meId: string, partnerId: string) =>
  (m.senderId === meId && m.recipientId === partnerId) || (m.senderId === partnerId && m.recipientId === meId);

/** My messages up to `upToId` read by the partner: the receipt's time on each. */
export function applyReadReceipt(messages: readonly Message[], meId: string, read: ReadEvent): Message[] {
  if (read.senderId !== meId) return messages as Message[];
  let changed = false;
  const next = messages.map((m) => {
    if (m.senderId === meId && m.recipientId === read.readerId && m.id <= read.upToId && !m.readAt) {
      changed = true;
      return { ...m, readAt: read.readAt };
    }
    return m;
  });
  return changed ? next : (messages as Message[]);
}

export type ChatListUpdate = {
  chats: ChatListEntry[];
  /** False when the partner is not in the list yet: only a reload knows their name. */
  known: boolean;
};

/**
 * A live message moves its chat to the top with the new last message; an incoming one counts as
 * unread unless that chat is open and being read (`readingPartnerId`). Replays of a message the
 * entry already shows change nothing.
 */
export function applyMessageToChats(
  chats: readonly ChatListEntry[],
  m: Message,
  meId: string,
  readingPartnerId: string | null,
): ChatListUpdate {
  const partnerId = partnerOf(m, meId);
  const index = chats.findIndex((c) => c.id === partnerId);
  if (index === -1) return { chats: chats as ChatListEntry[], known: false };
  const entry = chats[index]!;
  if (entry.lastMessage.id >= m.id) return { chats: chats as ChatListEntry[], known: true };
  const incoming = m.senderId === partnerId;
  const updated: ChatListEntry = {
    ...entry,
    lastMessage: { id: m.id, content: m.content, createAt: m.createAt, senderId: m.senderId },
    unreadCount: incoming && readingPartnerId !== partnerId ? entry.unreadCount + 1 : entry.unreadCount,
  };
  const rest = chats.filter((_, i) => i !== index);
  return { chats: [updated, ...rest], known: true };
}

/** A receipt for messages I received (read in another tab): that chat has nothing unread left. */
export function applyReadToChats(chats: readonly ChatListEntry[], meId: string, read: ReadEvent): ChatListEntry[] {
  if (read.readerId !== meId) return chats as ChatListEntry[];
  const index = chats.findIndex((c) => c.id === read.senderId && c.unreadCount > 0);
  if (index === -1) return chats as ChatListEntry[];
  return chats.map((c, i) => (i === index ? { ...c, unreadCount: 0 } : c));
}

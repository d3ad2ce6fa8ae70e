import type { ChatListEntry, Message } from '@medshare/contracts';
import { describe, expect, it } from 'vitest';
import { applyMessageToChats, applyReadReceipt, applyReadToChats, mergeMessages } from './merge-messages';

const ME = '11111111-1111-4111-8111-111111111111';
const DOC = '22222222-2222-4222-8222-222222222222';
const NURSE = '33333333-3333-4333-8333-333333333333';

const msg = (id: number, senderId = DOC, recipientId = ME, extra: Partial<Message> = {}): Message => ({
  id,
  senderId,
  recipientId,
  content: `message ${id}`,
  createAt: new Date(Date.UTC(2026, 2, 9, 10, id)).toISOString(),
  readAt: null,
  ...extra,
});

const entry = (id: string, lastId: number, unreadCount = 0): ChatListEntry => ({
  id,
  firstname: 'F',
  lastname: 'L',
  role: 'healthProvider',
  lastMessage: { id: lastId, content: `message ${lastId}`, createAt: msg(lastId).createAt, senderId: id },
  unreadCount,
});

describe('mergeMessages', () => {
  it('appends a live message once, however often it is delivered (send answer, stream, replay)', () => {
    const thread = [msg(1), msg(2, ME, DOC)];
    const once = mergeMessages(thread, [msg(3)]);
    const twice = mergeMessages(mergeMessages(once, [msg(3)]), [msg(3), msg(2, ME, DOC)]);
    expect(twice.map((m) => m.id)).toEqual([1, 2, 3]);
  });

  it('returns the same array when nothing is new, so React skips a render', () => {
    const thread = [msg(1), msg(2)];
    expect(mergeMessages(thread, [msg(2)])).toBe(thread);
    expect(mergeMessages(thread, [])).toBe(thread);
  });

  it('orders by id when older pages and out-of-order events arrive', () => {
    const merged = mergeMessages([msg(5), msg(6)], [msg(8), msg(2), msg(3), msg(7)]);
    expect(merged.map((m) => m.id)).toEqual([2, 3, 5, 6, 7, 8]);
  });

  it('keeps a known read time when a stale copy without one arrives', () => {
    const read = msg(4, ME, DOC, { readAt: '2026-03-09T11:00:00.000Z' });
    expect(mergeMessages([read], [msg(4, ME, DOC)])[0]!.readAt).toBe('2026-03-09T11:00:00.000Z');
  });
});

describe('applyReadReceipt', () => {
  it('marks my messages up to the id as read by that partner only', () => {
    const thread = [msg(1, ME, DOC), msg(2), msg(3, ME, DOC), msg(4, ME, DOC)];
    const next = applyReadReceipt(thread, ME, { readerId: DOC, senderId: ME, upToId: 3, readAt: 'T' });
    expect(next.map((m) => m.readAt)).toEqual(['T', null, 'T', null]);
  });

  it('ignores receipts about messages I did not send', () => {
    const thread = [msg(1)];
    expect(applyReadReceipt(thread, ME, { readerId: ME, senderId: DOC, upToId: 1, readAt: 'T' })).toBe(thread);
  });
});

describe('applyMessageToChats', () => {
  it('moves the chat to the top with the new last message and counts it unread', () => {
    const chats = [entry(NURSE, 9), entry(DOC, 4)];
    const { chats: next, known } = applyMessageToChats(chats, msg(10), ME, null);
    expect(known).toBe(true);
    expect(next.map((c) => [c.id, c.lastMessage.id, c.unreadCount])).toEqual([
      [DOC, 10, 1],
      [NURSE, 9, 0],
    ]);
  });

  it('does not count a message in the chat being read, nor my own', () => {
    expect(applyMessageToChats([entry(DOC, 4)], msg(5), ME, DOC).chats[0]!.unreadCount).toBe(0);
    expect(applyMessageToChats([entry(DOC, 4)], msg(5, ME, DOC), ME, null).chats[0]!.unreadCount).toBe(0);
  });

  it('changes nothing for a replayed message the entry already shows', () => {
    const chats = [entry(DOC, 7, 2)];
    expect(applyMessageToChats(chats, msg(7), ME, null).chats).toBe(chats);
  });

  it('reports an unknown partner so the list is reloaded for their name', () => {
    expect(applyMessageToChats([entry(NURSE, 1)], msg(2), ME, null).known).toBe(false);
  });
});

describe('applyReadToChats', () => {
  it('clears the unread badge when I read that chat in another tab', () => {
    const next = applyReadToChats([entry(DOC, 4, 3)], ME, { readerId: ME, senderId: DOC, upToId: 4, readAt: 'T' });
    expect(next[0]!.unreadCount).toBe(0);
  });
});

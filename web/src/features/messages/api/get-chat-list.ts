import { ApiPaths } from '@medshare/contracts/paths';
import type { ChatListEntry } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export const CHAT_LIST_PAGE_SIZE = 50;

/** Conversation partners, most recent first, with unread counts. */
export function getChatList(page = 1, signal?: AbortSignal) {
  return api.get<ChatListEntry[]>(ApiPaths.chatList, { query: { page, limit: CHAT_LIST_PAGE_SIZE }, signal });
}

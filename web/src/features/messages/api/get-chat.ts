import { ApiPaths } from '@medshare/contracts/paths';
import type { Message } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export const THREAD_PAGE_SIZE = 50;

export type ThreadPage = { messages: Message[]; hasOlder: boolean };

/**
 * One page of a thread, oldest to newest: the newest page, or the one before `before` (keyset).
 * The API client hands back only the envelope's `data`, not its `cursor`, so "older pages exist"
 * is read from a full page; at worst that costs one empty request at the very start of a thread.
 */
export async function getChat(userId: string, before?: number, signal?: AbortSignal): Promise<ThreadPage> {
  const result = await api.get<Message[]>(`${ApiPaths.chat}/${encodeURIComponent(userId)}`, {
    query: { limit: THREAD_PAGE_SIZE, before },
    signal,
  });
  return { messages: result.data, hasOlder: result.data.length >= THREAD_PAGE_SIZE };
}

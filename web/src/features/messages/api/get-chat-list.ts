import { ApiPaths } from '@medshare/contracts/paths';
import type { ChatListEntry } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

export const CHAT_LIST_PAGE_SIZE = 50;

export type ChatListPage = { chats: ChatListEntry[]; hasMore: boolean };

/** The loaded pages as one list, each partner once (a partner can move pages between two loads). */
export function flattenChats(pages: readonly ChatListPage[]): ChatListEntry[] {
  const seen = new Set<string>();
  const chats: ChatListEntry[] = [];
  for (const page of pages) {
    for (const entry of page.chats) {
      if (seen.has(entry.id)) continue;
      seen.add(entry.id);
      chats.push(entry);
    }
  }
  return chats;
}

export const chatListApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * Conversation partners, most recent first, with unread counts; "more" loads the next page. A
     * sent message invalidates it (`Conversations`); live events edit it in place (../hooks/use-live-cache.ts).
     */
    getChatList: build.infiniteQuery<ChatListPage, void, number>({
      infiniteQueryOptions: {
        initialPageParam: 1,
        getNextPageParam: (lastPage, _allPages, lastPageParam) => (lastPage.hasMore ? lastPageParam + 1 : undefined),
      },
      query: ({ pageParam }) => ({ url: ApiPaths.chatList, query: { page: pageParam, limit: CHAT_LIST_PAGE_SIZE } }),
      transformResponse: (result: ApiResult<unknown>) => ({
        chats: result.data as ChatListEntry[],
        hasMore: Boolean(result.pagination?.hasNextPage),
      }),
      providesTags: ['Conversations'],
    }),
  }),
});

export const { useGetChatListInfiniteQuery } = chatListApi;

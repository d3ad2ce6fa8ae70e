import { ApiPaths } from '@medshare/contracts/paths';
import type { Message } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { mergeMessages } from '../utils/merge-messages';

export const THREAD_PAGE_SIZE = 50;

export type ThreadPage = { messages: Message[]; hasOlder: boolean };

/** The loaded pages of a thread as one list, oldest to newest, each message once. */
export function threadMessages(pages: readonly ThreadPage[]): Message[] {
  return pages.reduce<Message[]>((all, page) => mergeMessages(all, page.messages), []);
}

/** "Before the newest" as a page parameter: 0 asks for the newest page. */
const NEWEST = 0;

export const chatApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * A thread with one partner, newest page first, each next page the one before the oldest
     * message so far (keyset). The API client hands back only the envelope's `data`, not its
     * `cursor`, so "older pages exist" is read from a full page; at worst that costs one empty
     * request at the very start of a thread. A sent message invalidates the thread
     * (`Messages`/partner id); live events edit it in place.
     */
    getChat: build.infiniteQuery<ThreadPage, string, number>({
      infiniteQueryOptions: {
        initialPageParam: NEWEST,
        getNextPageParam: (lastPage) => (lastPage.hasOlder ? lastPage.messages[0]?.id : undefined),
      },
      query: ({ queryArg: partnerId, pageParam }) => ({
        url: `${ApiPaths.chat}/${encodeURIComponent(partnerId)}`,
        query: { limit: THREAD_PAGE_SIZE, before: pageParam === NEWEST ? undefined : pageParam },
      }),
      transformResponse: (result: ApiResult<unknown>) => {
        const messages = result.data as Message[];
        return { messages, hasOlder: messages.length >= THREAD_PAGE_SIZE };
      },
      providesTags: (_result, _error, partnerId) => [{ type: 'Messages', id: partnerId }],
    }),
  }),
});

export const { useGetChatInfiniteQuery } = chatApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { MarkReadResponseData } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';
import { chatListApi } from './get-chat-list';
import { chatApi } from './get-chat';

const markChatReadApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * Marks everything this partner sent me as read; the server answers what is still unread. The
     * chat list takes that count and the thread the read time in place (no reload of either).
     */
    markChatRead: build.mutation<MarkReadResponseData, string>({
      query: (partnerId) => ({ url: `${ApiPaths.chat}/${encodeURIComponent(partnerId)}/read`, method: 'POST' }),
      transformResponse: dataOf<MarkReadResponseData>,
      async onQueryStarted(partnerId, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(
            chatListApi.util.updateQueryData('getChatList', undefined, (list) => {
              for (const page of list.pages) {
                for (const entry of page.chats) if (entry.id === partnerId) entry.unreadCount = data.unreadCount;
              }
            }),
          );
          const readAt = new Date().toISOString();
          dispatch(
            chatApi.util.updateQueryData('getChat', partnerId, (thread) => {
              for (const page of thread.pages) {
                for (const m of page.messages) if (m.senderId === partnerId && !m.readAt) m.readAt = readAt;
              }
            }),
          );
        } catch {
          // Stays unread and is tried again when the chat is opened or a message comes in.
        }
      },
    }),
  }),
});

export const { useMarkChatReadMutation } = markChatReadApi;

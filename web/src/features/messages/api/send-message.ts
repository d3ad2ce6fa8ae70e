import { ApiPaths } from '@medshare/contracts/paths';
import type { Message, SendMessageBody } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { mergeMessages } from '../utils/merge-messages';
import { chatApi } from './get-chat';

const sendMessageApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * `docs/product.md` › States and transitions: the sent message shows at once (written into the
     * thread), then the chat list and the thread are reloaded (both invalidated).
     */
    sendMessage: build.mutation<ApiResult<Message>, SendMessageBody>({
      query: (body) => ({ url: ApiPaths.sendMessage, method: 'POST', body }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<Message>,
      async onQueryStarted({ recipientId }, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(
            chatApi.util.updateQueryData('getChat', recipientId, (thread) => {
              const newest = thread.pages[0];
              if (newest) newest.messages = mergeMessages(newest.messages, [data.data]);
            }),
          );
        } catch {
          // The composer keeps the text and the screen says why.
        }
      },
      invalidatesTags: (result, _error, { recipientId }) =>
        result ? ['Conversations', { type: 'Messages', id: recipientId }] : [],
    }),
  }),
});

export const { useSendMessageMutation } = sendMessageApi;

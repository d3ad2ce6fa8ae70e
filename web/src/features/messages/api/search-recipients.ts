import type { MessageRecipient } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';

export const RECIPIENTS_PAGE_SIZE = 20;

const recipientsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** People the signed-in user may write to, by part of a name or e-mail. */
    searchRecipients: build.query<MessageRecipient[], string>({
      query: (search) => ({
        url: '/message/users',
        query: { search: search.trim() || undefined, page: 1, limit: RECIPIENTS_PAGE_SIZE },
      }),
      transformResponse: dataOf<MessageRecipient[]>,
      providesTags: ['Users'],
    }),
  }),
});

export const { useSearchRecipientsQuery } = recipientsApi;

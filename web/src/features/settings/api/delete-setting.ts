import { ApiPaths } from '@medshare/contracts/paths';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { changeCachedList } from './list-settings';

/**
 * The id travels in the body, as the original client sent it (`docs/product.md` › Calls); the caller is the
 * token's user.
 */
const deleteSettingApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    deleteSetting: build.mutation<ApiResult<null>, string>({
      query: (id) => ({ url: `${ApiPaths.settings}/delete`, method: 'DELETE', body: { id } }),
      transformResponse: (result) => result as ApiResult<null>,
      // A deleted custom setting could have been public: every page's copy is read again.
      invalidatesTags: ['PublicSettings'],
      onQueryStarted: async (id, { dispatch, queryFulfilled }) => {
        const { data } = await queryFulfilled.catch(() => ({ data: null }));
        if (data) dispatch(changeCachedList((list) => list.filter((s) => s.id !== id)));
      },
    }),
  }),
});

export const { useDeleteSettingMutation } = deleteSettingApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { DeleteAccountBody } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

const deleteAccountApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * Deletes the signed-in account. A wrong password is a 400 on `password`, not a lost session, so
     * the global 401 redirect stays on only for a session the server has really ended. The session
     * is cleared afterwards, which empties the whole cache.
     */
    deleteAccount: build.mutation<ApiResult<null>, DeleteAccountBody>({
      query: (body) => ({ url: ApiPaths.profile, method: 'DELETE', body }),
      transformResponse: (result) => result as ApiResult<null>,
    }),
  }),
});

export const { useDeleteAccountMutation } = deleteAccountApi;

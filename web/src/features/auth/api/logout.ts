import { ApiPaths } from '@medshare/contracts/paths';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

const logoutApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Ends the session on the server. The logout flow clears it locally and navigates itself, even when the token already died. */
    logout: build.mutation<ApiResult<null>, void>({
      query: () => ({ url: ApiPaths.logout, method: 'POST', handleSessionExpiry: false }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<null>,
    }),
  }),
});

export const { useLogoutMutation } = logoutApi;

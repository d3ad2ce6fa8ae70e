import { ApiPaths } from '@medshare/contracts/paths';
import type { ToggleUserStatusBody, User } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

const activateProviderApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * toggleUserStatus on a pending provider activates the account (Activate/Deactivate of
     * `docs/product.md` › Dashboard). The summary, the users lists, the counts and that profile move.
     */
    activateProvider: build.mutation<ApiResult<User>, string>({
      query: (id) => ({
        url: `${ApiPaths.toggleUserStatus}/${id}`,
        method: 'PUT',
        // The state asked for: a second click answers the approved account, never deactivates it.
        body: { active: true } satisfies ToggleUserStatusBody,
      }),
      transformResponse: (result) => result as ApiResult<User>,
      invalidatesTags: (_result, error, id) =>
        error ? [] : ['AdminSummary', 'Users', 'UserStats', { type: 'User', id }],
    }),
  }),
});

export const { useActivateProviderMutation } = activateProviderApi;

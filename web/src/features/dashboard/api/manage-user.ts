import { ApiPaths } from '@medshare/contracts/paths';
import type { User } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

/** What a change to an account moves: every users list, the counts, the admin summary and that profile. */
const changedAccount = (id: string) => ['Users', 'UserStats', 'AdminSummary', { type: 'User' as const, id }] as const;

const manageUserApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Approves a pending provider, or activates / deactivates an account (admin). */
    toggleUserStatus: build.mutation<ApiResult<User>, string>({
      query: (id) => ({ url: `${ApiPaths.toggleUserStatus}/${id}`, method: 'PUT' }),
      transformResponse: (result) => result as ApiResult<User>,
      invalidatesTags: (_result, error, id) => (error ? [] : [...changedAccount(id)]),
    }),
    /** Soft-deletes an account (admin): personal data scrubbed, sessions ended. */
    deleteUser: build.mutation<ApiResult<null>, string>({
      query: (id) => ({ url: `${ApiPaths.users}/${id}`, method: 'DELETE' }),
      transformResponse: (result) => result as ApiResult<null>,
      invalidatesTags: (_result, error, id) => (error ? [] : [...changedAccount(id)]),
    }),
  }),
});

export const { useToggleUserStatusMutation, useDeleteUserMutation } = manageUserApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { ToggleUserStatusBody, User } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

/** What a change to an account moves: every users list, the counts, the admin summary and that profile. */
const changedAccount = (id: string) => ['Users', 'UserStats', 'AdminSummary', { type: 'User' as const, id }] as const;

const manageUserApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * Approves a pending provider, or activates / deactivates an account (admin). `active` is the
     * state asked for, so that a repeated request (a double click) never undoes the first.
     */
    toggleUserStatus: build.mutation<ApiResult<User>, { id: string; active: boolean }>({
      query: ({ id, active }) => ({
        url: `${ApiPaths.toggleUserStatus}/${id}`,
        method: 'PUT',
        body: { active } satisfies ToggleUserStatusBody,
      }),
      transformResponse: (result) => result as ApiResult<User>,
      invalidatesTags: (_result, error, { id }) => (error ? [] : [...changedAccount(id)]),
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

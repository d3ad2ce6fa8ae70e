import { ApiPaths } from '@medshare/contracts/paths';
import type { RoleName, UserListItem } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';

export type UserSearch = { search?: string; role?: RoleName; limit?: number };

const searchUsersApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * The users the caller may list (users:read): a provider sees active patients and providers, an
     * admin everyone. Searched by name, e-mail or username prefix on the server.
     */
    searchUsers: build.query<UserListItem[], UserSearch>({
      query: ({ search, role, limit }) => ({
        url: ApiPaths.users,
        query: { search: search?.trim() || undefined, role, limit: limit ?? 10, sort: 'name', order: 'asc' },
      }),
      transformResponse: dataOf<UserListItem[]>,
      providesTags: ['Users'],
    }),
  }),
});

export const { useSearchUsersQuery } = searchUsersApi;

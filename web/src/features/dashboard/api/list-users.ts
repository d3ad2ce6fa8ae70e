import { ApiPaths } from '@medshare/contracts/paths';
import type { UserListItem } from '@medshare/contracts';
import { apiSlice, pageOf } from '../../../lib/api-slice';

export type UsersSort = 'name' | 'email' | 'role' | 'createdAt';

export type ListUsersParams = {
  page: number;
  limit: number;
  sort: UsersSort;
  order: 'asc' | 'desc';
  search?: string;
};

const listUsersApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** One page of the users table; admins get account state on each row, providers do not. */
    listUsers: build.query<ReturnType<typeof pageOf<UserListItem>>, ListUsersParams>({
      query: (params) => ({ url: ApiPaths.users, query: { ...params, search: params.search || undefined } }),
      transformResponse: pageOf<UserListItem>,
      providesTags: ['Users'],
    }),
  }),
});

export const { useListUsersQuery } = listUsersApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { UserListItem } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export type UsersSort = 'name' | 'email' | 'role' | 'createdAt';

export type ListUsersParams = {
  page: number;
  limit: number;
  sort: UsersSort;
  order: 'asc' | 'desc';
  search?: string;
};

/** One page of the users table; admins get account state on each row, providers do not. */
export function listUsers(params: ListUsersParams, signal?: AbortSignal) {
  return api.get<UserListItem[]>(ApiPaths.users, {
    signal,
    query: { ...params, search: params.search || undefined },
  });
}

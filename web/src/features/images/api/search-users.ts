import { ApiPaths } from '@medshare/contracts/paths';
import type { RoleName, UserListItem } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

/**
 * The users the caller may list (users:read): a provider sees active patients and providers, an
 * admin everyone. Searched by name, e-mail or username prefix on the server.
 */
export function searchUsers(params: { search?: string; role?: RoleName; limit?: number }, signal?: AbortSignal) {
  const search = params.search?.trim();
  return api.get<UserListItem[]>(ApiPaths.users, {
    query: { search: search || undefined, role: params.role, limit: params.limit ?? 10, sort: 'name', order: 'asc' },
    signal,
  });
}

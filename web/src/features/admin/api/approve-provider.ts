import { ApiPaths } from '@medshare/contracts/paths';
import type { User } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

/** toggleUserStatus on a pending provider approves (activates) the account. */
export function approveProvider(id: string) {
  return api.put<User>(`${ApiPaths.toggleUserStatus}/${id}`);
}

import { ApiPaths } from '@medshare/contracts/paths';
import type { User } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

/** Approves a pending provider, or activates / deactivates an account (admin). */
export function toggleUserStatus(id: string) {
  return api.put<User>(`${ApiPaths.toggleUserStatus}/${id}`);
}

/** Soft-deletes an account (admin): personal data scrubbed, sessions ended. */
export function deleteUser(id: string) {
  return api.delete<null>(`${ApiPaths.users}/${id}`);
}

import { ApiPaths } from '@medshare/contracts/paths';
import type { UserProfileView } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

/** Another user's profile in the widest view the caller may have (full, care or public). */
export function getUser(id: string, signal?: AbortSignal) {
  return api.get<UserProfileView>(`${ApiPaths.users}/${encodeURIComponent(id)}`, { signal });
}

import { ApiPaths } from '@medshare/contracts/paths';
import type { Role } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

/** Roles with the permissions each holds (roles:read). */
export function listRoles(signal?: AbortSignal) {
  return api.get<Role[]>(ApiPaths.roles, { signal });
}

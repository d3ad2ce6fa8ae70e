import { ApiPaths } from '@medshare/contracts/paths';
import type { Permission } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

/** Permissions with the roles holding each (roles:read). */
export function listPermissions(signal?: AbortSignal) {
  return api.get<Permission[]>(ApiPaths.permissions, { signal });
}

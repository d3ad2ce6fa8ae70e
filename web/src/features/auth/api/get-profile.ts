import { ApiPaths } from '@medshare/contracts/paths';
import type { User } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export function getProfile(signal?: AbortSignal) {
  return api.get<User>(ApiPaths.profile, { signal });
}

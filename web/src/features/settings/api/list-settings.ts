import { ApiPaths } from '@medshare/contracts/paths';
import type { AppSetting } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export function listSettings(signal?: AbortSignal) {
  return api.get<AppSetting[]>(`${ApiPaths.settings}/`, { signal });
}

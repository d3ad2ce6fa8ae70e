import { ApiPaths } from '@medshare/contracts/paths';
import type { DashboardStats } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export function getStats(signal?: AbortSignal) {
  return api.get<DashboardStats>(`${ApiPaths.users}/stats`, { signal });
}

import type { AdminSummary } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export function getAdminSummary(signal?: AbortSignal) {
  return api.get<AdminSummary>('/admin/summary', { signal });
}

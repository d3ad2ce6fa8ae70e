import { ApiPaths } from '@medshare/contracts/paths';
import { api } from '../../../lib/api-client';

/** Distinct action types for the filter (the caller's own for a provider). */
export function listAuditActions(signal?: AbortSignal) {
  return api.get<string[]>(`${ApiPaths.auditLogs.replace(/\/logs$/, '')}/actions`, { signal });
}

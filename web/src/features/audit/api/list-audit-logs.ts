import { ApiPaths } from '@medshare/contracts/paths';
import type { AuditLog, AuditPagination } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export type AuditQuery = {
  page: number;
  limit: number;
  search?: string;
  action?: string;
  /** Calendar dates (YYYY-MM-DD), read by the server in the display time zone. */
  from?: string;
  to?: string;
};

/** Newest first; admins read every row, providers only rows they acted in. */
export async function listAuditLogs(query: AuditQuery, signal?: AbortSignal) {
  const result = await api.get<AuditLog[]>(ApiPaths.auditLogs, {
    query: {
      page: query.page,
      limit: query.limit,
      search: query.search || undefined,
      action: query.action || undefined,
      from: query.from || undefined,
      to: query.to || undefined,
    },
    signal,
  });
  // A proxy or an older server can answer 200 with something else; the table must not break on it.
  if (!Array.isArray(result.data)) throw new Error('The server sent an unexpected answer.');
  return { items: result.data, pagination: result.pagination as AuditPagination | undefined };
}

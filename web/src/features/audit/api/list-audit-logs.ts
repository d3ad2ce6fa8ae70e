import { ApiPaths } from '@medshare/contracts/paths';
import type { AuditCategory, AuditLog, AuditPagination } from '@medshare/contracts';
import { apiSlice } from '../../../lib/api-slice';

export type AuditQuery = {
  page: number;
  limit: number;
  search?: string;
  action?: string;
  /** Reads of others' data, refusals (every failure row) or writes. */
  category?: AuditCategory | '';
  /** Calendar dates (YYYY-MM-DD), read by the server in the display time zone. */
  from?: string;
  to?: string;
};

/** One page of the trail; `items` is null when a proxy or an older server answered 200 with something else. */
export type AuditPage = { items: AuditLog[] | null; pagination: AuditPagination | undefined };

const auditLogsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Newest first; admins read every row, providers only rows they acted in. */
    listAuditLogs: build.query<AuditPage, AuditQuery>({
      query: (query) => ({
        url: ApiPaths.auditLogs,
        query: {
          page: query.page,
          limit: query.limit,
          search: query.search || undefined,
          action: query.action || undefined,
          category: query.category || undefined,
          from: query.from || undefined,
          to: query.to || undefined,
        },
      }),
      transformResponse: (result) => ({
        items: Array.isArray(result.data) ? (result.data as AuditLog[]) : null,
        pagination: result.pagination as AuditPagination | undefined,
      }),
      providesTags: ['AuditLogs'],
    }),
  }),
});

export const { useListAuditLogsQuery } = auditLogsApi;

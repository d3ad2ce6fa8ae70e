import { ApiPaths } from '@medshare/contracts/paths';
import { apiSlice, dataOf } from '../../../lib/api-slice';

const auditActionsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Distinct action types for the filter (the caller's own for a provider). */
    listAuditActions: build.query<string[], void>({
      query: () => ({ url: `${ApiPaths.auditLogs.replace(/\/logs$/, '')}/actions` }),
      transformResponse: dataOf<string[]>,
      providesTags: ['AuditActions'],
    }),
  }),
});

export const { useListAuditActionsQuery } = auditActionsApi;

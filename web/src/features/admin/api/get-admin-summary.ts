import type { AdminSummary } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';

const adminSummaryApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Figures, pending providers and uploads per day; any change to an account or image makes it stale. */
    getAdminSummary: build.query<AdminSummary, void>({
      query: () => ({ url: '/admin/summary' }),
      transformResponse: dataOf<AdminSummary>,
      providesTags: ['AdminSummary'],
    }),
  }),
});

export const { useGetAdminSummaryQuery } = adminSummaryApi;

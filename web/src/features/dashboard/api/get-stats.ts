import { ApiPaths } from '@medshare/contracts/paths';
import type { DashboardStats } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';

const statsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** The stat cards' counts; a share, an upload or a change to an account makes them stale. */
    getStats: build.query<DashboardStats, void>({
      query: () => ({ url: `${ApiPaths.users}/stats` }),
      transformResponse: dataOf<DashboardStats>,
      providesTags: ['UserStats'],
    }),
  }),
});

export const { useGetStatsQuery } = statsApi;

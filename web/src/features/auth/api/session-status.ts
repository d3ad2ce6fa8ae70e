import { ApiPaths } from '@medshare/contracts/paths';
import type { SessionStatus } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';

const sessionStatusApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * The session's idle limit and end (GET /api/auth/session). Asking keeps the session alive on the
     * server: the session watch asks again only while its user is active.
     */
    getSessionStatus: build.query<SessionStatus, void>({
      query: () => ({ url: ApiPaths.session }),
      transformResponse: dataOf<SessionStatus>,
    }),
  }),
});

export const { useGetSessionStatusQuery } = sessionStatusApi;

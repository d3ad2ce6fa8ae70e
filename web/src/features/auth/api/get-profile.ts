import { ApiPaths } from '@medshare/contracts/paths';
import type { User } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';

const getProfileApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** The signed-in user as the server has them now; an edit to this user's row refetches it. */
    getProfile: build.query<User, void>({
      query: () => ({ url: ApiPaths.profile }),
      transformResponse: dataOf<User>,
      providesTags: (result) => (result ? [{ type: 'User', id: result.id }] : []),
    }),
  }),
});

export const { useGetProfileQuery } = getProfileApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { UserProfileView } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';

const getUserApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Another user's profile in the widest view the caller may have (full, care or public). */
    getUser: build.query<UserProfileView, string>({
      query: (id) => ({ url: `${ApiPaths.users}/${encodeURIComponent(id)}` }),
      transformResponse: dataOf<UserProfileView>,
      providesTags: (_result, _error, id) => [{ type: 'User', id }],
    }),
  }),
});

export const { useGetUserQuery } = getUserApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { UpdateProfileBody, User } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

const updateProfileApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** The signed-in user's own fields; their name shows in users lists and on their profile. */
    updateProfile: build.mutation<ApiResult<User>, UpdateProfileBody>({
      query: (body) => ({ url: ApiPaths.profile, method: 'PUT', body }),
      transformResponse: (result) => result as ApiResult<User>,
      invalidatesTags: (result) => (result ? ['Users', { type: 'User', id: result.data.id }] : []),
    }),
  }),
});

export const { useUpdateProfileMutation } = updateProfileApi;

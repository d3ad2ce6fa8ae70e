import { ApiPaths } from '@medshare/contracts/paths';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { IMAGE_LIST_TAG } from './list-images';

export const deleteImageApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Gone for everyone it was shared with: the list, the dashboard counts and its analyses change. */
    deleteImage: build.mutation<ApiResult<null>, string>({
      query: (id) => ({ url: `${ApiPaths.uploadImage}/${id}`, method: 'DELETE' }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<null>,
      invalidatesTags: (_result, _error, id) => [
        IMAGE_LIST_TAG,
        { type: 'Images', id },
        { type: 'Shares', id },
        { type: 'Analysis', id },
        'UserStats',
        'AdminSummary',
      ],
    }),
  }),
});

export const { useDeleteImageMutation } = deleteImageApi;

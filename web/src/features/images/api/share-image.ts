import { ApiPaths } from '@medshare/contracts/paths';
import type { Share, ShareRequestBody } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { IMAGE_LIST_TAG } from './list-images';

export const shareImageApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Creates a share; the server mails the sharing id and the code to the recipient only. */
    shareImage: build.mutation<ApiResult<Share>, ShareRequestBody>({
      query: (body) => ({ url: ApiPaths.shareRequest, method: 'POST', body }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<Share>,
      invalidatesTags: (_result, _error, body) => [
        { type: 'Shares', id: body.imagemetadataId },
        IMAGE_LIST_TAG,
        'UserStats',
        'AdminSummary',
      ],
    }),
  }),
});

export const { useShareImageMutation } = shareImageApi;

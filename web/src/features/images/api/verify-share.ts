import { ApiPaths } from '@medshare/contracts/paths';
import type { ShareVerifyBody, ShareVerifyResponseData } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { IMAGE_LIST_TAG } from './list-images';

const verifyShareApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** A verified share opens the image: the list answers its content path from now on. */
    verifyShare: build.mutation<ApiResult<ShareVerifyResponseData>, ShareVerifyBody>({
      query: (body) => ({ url: ApiPaths.shareVerify, method: 'POST', body }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<ShareVerifyResponseData>,
      invalidatesTags: (result) => [
        IMAGE_LIST_TAG,
        ...(result ? [{ type: 'Shares' as const, id: result.data.imageId }] : []),
      ],
    }),
  }),
});

export const { useVerifyShareMutation } = verifyShareApi;

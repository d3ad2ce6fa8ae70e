import type { Share } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice, dataOf } from '../../../lib/api-slice';
import { IMAGE_LIST_TAG } from './list-images';

export const imageSharesApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** The shares of one image as its sender sees them (never codes). */
    listShares: build.query<Share[], string>({
      query: (imageId) => ({ url: `/sharing/image/${imageId}` }),
      transformResponse: dataOf<Share[]>,
      providesTags: (_result, _error, imageId) => [{ type: 'Shares', id: imageId }],
    }),
    /** A revoked share changes the image's shares, the recipient's list and the shared count. */
    revokeShare: build.mutation<ApiResult<Share>, { sharingId: string; imageId: string }>({
      query: ({ sharingId }) => ({ url: `/sharing/${sharingId}`, method: 'DELETE' }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<Share>,
      invalidatesTags: (_result, _error, { imageId }) => [
        { type: 'Shares', id: imageId },
        IMAGE_LIST_TAG,
        'UserStats',
        'AdminSummary',
      ],
    }),
  }),
});

export const { useListSharesQuery, useRevokeShareMutation } = imageSharesApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { ConfirmBody, ConfirmResponseData, SessionData } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

const confirmApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Confirms an e-mailed code: after registration, or as the second step of a login. */
    confirmCode: build.mutation<ApiResult<ConfirmResponseData>, ConfirmBody>({
      query: (body) => ({ url: ApiPaths.confirm, method: 'POST', body, auth: false }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<ConfirmResponseData>,
    }),
  }),
});

export const { useConfirmCodeMutation } = confirmApi;

export function isSession(data: ConfirmResponseData): data is SessionData {
  return 'token' in data;
}

import { ApiPaths } from '@medshare/contracts/paths';
import type { ResetPasswordBody } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

const resetPasswordApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Either the e-mailed code ({email, otp, newPassword}) or the e-mailed link ({token, password}). */
    resetPassword: build.mutation<ApiResult<null>, ResetPasswordBody>({
      query: (body) => ({ url: ApiPaths.resetPassword, method: 'POST', body, auth: false }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<null>,
    }),
  }),
});

export const { useResetPasswordMutation } = resetPasswordApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { ForgotPasswordBodySchema } from '@medshare/contracts';
import type { z } from 'zod';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

const forgotPasswordApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Mails a reset code and link; the answer is the same whether or not the account exists. */
    forgotPassword: build.mutation<ApiResult<null>, z.input<typeof ForgotPasswordBodySchema>>({
      query: (body) => ({ url: ApiPaths.forgotPassword, method: 'POST', body, auth: false }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<null>,
    }),
  }),
});

export const { useForgotPasswordMutation } = forgotPasswordApi;

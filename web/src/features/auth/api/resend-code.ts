import { ApiPaths } from '@medshare/contracts/paths';
import type { ResendCodeBodySchema } from '@medshare/contracts';
import type { z } from 'zod';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

const resendCodeApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    resendCode: build.mutation<ApiResult<null>, z.input<typeof ResendCodeBodySchema>>({
      query: (body) => ({ url: ApiPaths.resendCode, method: 'POST', body, auth: false }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<null>,
    }),
  }),
});

export const { useResendCodeMutation } = resendCodeApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { LoginBody, LoginResponseDataSchema } from '@medshare/contracts';
import type { z } from 'zod';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

export type LoginResponseData = z.infer<typeof LoginResponseDataSchema>;

const loginApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Step one of the two-factor sign-in: checks the password and has a code e-mailed. */
    login: build.mutation<ApiResult<LoginResponseData>, LoginBody>({
      query: (body) => ({ url: ApiPaths.login, method: 'POST', body, auth: false }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<LoginResponseData>,
    }),
  }),
});

export const { useLoginMutation } = loginApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { RegisterBody, RegisterResponseDataSchema } from '@medshare/contracts';
import type { z } from 'zod';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';

export type RegisterResponseData = z.infer<typeof RegisterResponseDataSchema>;

const registerApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    register: build.mutation<ApiResult<RegisterResponseData>, RegisterBody>({
      query: (body) => ({ url: ApiPaths.register, method: 'POST', body, auth: false }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<RegisterResponseData>,
    }),
  }),
});

export const { useRegisterMutation } = registerApi;

import { ApiPaths } from '@medshare/contracts/paths';
import type { RegisterBody, RegisterResponseDataSchema } from '@medshare/contracts';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

export type RegisterResponseData = z.infer<typeof RegisterResponseDataSchema>;

export function register(body: RegisterBody) {
  return api.post<RegisterResponseData>(ApiPaths.register, body, { auth: false });
}

export function useRegister() {
  return useMutation(register);
}

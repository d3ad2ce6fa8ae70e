import { ApiPaths } from '@medshare/contracts/paths';
import type { LoginBody, LoginResponseDataSchema } from '@medshare/contracts';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

export type LoginResponseData = z.infer<typeof LoginResponseDataSchema>;

/** Step one of the two-factor sign-in: checks the password and has a code e-mailed. */
export function login(body: LoginBody) {
  return api.post<LoginResponseData>(ApiPaths.login, body, { auth: false });
}

export function useLogin() {
  return useMutation(login);
}

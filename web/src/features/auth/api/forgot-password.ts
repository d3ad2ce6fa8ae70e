import { ApiPaths } from '@medshare/contracts/paths';
import type { ForgotPasswordBodySchema } from '@medshare/contracts';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

export function forgotPassword(body: z.input<typeof ForgotPasswordBodySchema>) {
  return api.post<null>(ApiPaths.forgotPassword, body, { auth: false });
}

export function useForgotPassword() {
  return useMutation(forgotPassword);
}

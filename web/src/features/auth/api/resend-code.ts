import { ApiPaths } from '@medshare/contracts/paths';
import type { ResendCodeBodySchema } from '@medshare/contracts';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

export function resendCode(body: z.input<typeof ResendCodeBodySchema>) {
  return api.post<null>(ApiPaths.resendCode, body, { auth: false });
}

export function useResendCode() {
  return useMutation(resendCode);
}

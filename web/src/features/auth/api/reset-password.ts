import { ApiPaths } from '@medshare/contracts/paths';
import type { ResetPasswordBody } from '@medshare/contracts';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

/** Either the e-mailed code ({email, otp, newPassword}) or the e-mailed link ({token, password}). */
export function resetPassword(body: ResetPasswordBody) {
  return api.post<null>(ApiPaths.resetPassword, body, { auth: false });
}

export function useResetPassword() {
  return useMutation(resetPassword);
}

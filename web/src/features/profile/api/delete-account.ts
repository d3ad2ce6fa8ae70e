import { ApiPaths } from '@medshare/contracts/paths';
import type { DeleteAccountBody } from '@medshare/contracts';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

/**
 * Deletes the signed-in account. A wrong password is a 400 on `password`, not a lost session, so
 * the global 401 redirect stays on only for a session the server has really ended.
 */
export function deleteAccount(body: DeleteAccountBody) {
  return api.delete<null>(ApiPaths.profile, { body });
}

export function useDeleteAccount() {
  return useMutation(deleteAccount);
}

import { ApiPaths } from '@medshare/contracts/paths';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

export function logout() {
  // The logout flow clears the session and navigates itself, even when the token already died.
  return api.post<null>(ApiPaths.logout, undefined, { handleSessionExpiry: false });
}

export function useLogoutRequest() {
  return useMutation(logout);
}

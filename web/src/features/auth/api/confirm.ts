import { ApiPaths } from '@medshare/contracts/paths';
import type { ConfirmBody, ConfirmResponseData, SessionData } from '@medshare/contracts';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

/** Confirms an e-mailed code: after registration, or as the second step of a login. */
export function confirmCode(body: ConfirmBody) {
  return api.post<ConfirmResponseData>(ApiPaths.confirm, body, { auth: false });
}

export function isSession(data: ConfirmResponseData): data is SessionData {
  return 'token' in data;
}

export function useConfirmCode() {
  return useMutation(confirmCode);
}

import { ApiPaths } from '@medshare/contracts/paths';
import type { ShareVerifyBody, ShareVerifyResponseData } from '@medshare/contracts';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

export function verifyShare(body: ShareVerifyBody) {
  return api.post<ShareVerifyResponseData>(ApiPaths.shareVerify, body);
}

export function useVerifyShare() {
  return useMutation(verifyShare);
}

import { ApiPaths } from '@medshare/contracts/paths';
import type { Share, ShareRequestBody } from '@medshare/contracts';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

/** Creates a share; the server mails the sharing id and the code to the recipient only. */
export function shareImage(body: ShareRequestBody) {
  return api.post<Share>(ApiPaths.shareRequest, body);
}

export function useShareImage() {
  return useMutation(shareImage);
}

import type { Share } from '@medshare/contracts';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

/** The shares of one image as its sender sees them (never codes). */
export function listShares(imageId: string, signal?: AbortSignal) {
  return api.get<Share[]>(`/sharing/image/${imageId}`, { signal });
}

export function revokeShare(sharingId: string) {
  return api.delete<Share>(`/sharing/${sharingId}`);
}

export function useRevokeShare() {
  return useMutation(revokeShare);
}

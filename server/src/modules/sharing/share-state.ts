import type { ShareState } from '@medshare/contracts';
import type { ShareRow } from '../../db/schema.ts';

export const MAX_SHARE_ATTEMPTS = 5;

/** The code hash of a study share's image rows: not a hash, so no code ever matches it alone. */
export const GROUP_MEMBER_CODE = '!share-group';

/**
 * One reading of a share's life, used for lists and for access: revoked and expired win over
 * everything; a verified share stays open until then even if wrong codes are tried on it later.
 */
export function shareState(
  share: Pick<ShareRow, 'revoked_at' | 'expires_at' | 'verified_at' | 'locked_at'>,
  now = Date.now(),
): ShareState {
  if (share.revoked_at) return 'revoked';
  if (share.expires_at && share.expires_at.getTime() <= now) return 'expired';
  if (share.verified_at) return 'verified';
  if (share.locked_at) return 'locked';
  return 'pending';
}

/** A share that still blocks a new one to the same person. */
export function isLive(share: Parameters<typeof shareState>[0]): boolean {
  const s = shareState(share);
  return s === 'pending' || s === 'verified';
}

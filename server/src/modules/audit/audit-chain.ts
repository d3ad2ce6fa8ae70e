import { createHash } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

export interface ChainFields {
  createdAt: Date;
  userId: string | null;
  actionType: string;
  tableName: string | null;
  recordId: string | null;
  ipAddress: string | null;
  status: 'success' | 'failure';
  reason: string | null;
}

/**
 * The canonical text after the previous hash: `["<previous hash>",` followed by this is the JSON
 * array the hash covers. Split so that the database can put the head's hash in front (in the same
 * statement that locks it) and hash the whole, without a round trip to read the head first.
 */
export function chainTail(row: ChainFields): string {
  return JSON.stringify([
    row.createdAt.toISOString(),
    row.userId,
    row.actionType,
    row.tableName,
    row.recordId,
    row.ipAddress,
    row.status,
    row.reason,
  ]).slice(1);
}

/** hash = SHA-256 over JSON [previous hash, the row's fields in a fixed order]. */
export function chainHash(prevHash: string, row: ChainFields): string {
  return createHash('sha256')
    .update(`[${JSON.stringify(prevHash)},${chainTail(row)}`)
    .digest('hex');
}

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

/** hash = SHA-256 over the previous hash and the row's fields, in a fixed order. */
export function chainHash(prevHash: string, row: ChainFields): string {
  const canonical = JSON.stringify([
    prevHash,
    row.createdAt.toISOString(),
    row.userId,
    row.actionType,
    row.tableName,
    row.recordId,
    row.ipAddress,
    row.status,
    row.reason,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

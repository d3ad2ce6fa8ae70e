import type { Db } from '../db/db.ts';
import { createKeyring } from './envelope.ts';
import { masterKeyId as fieldMasterKeyId, unwrapKeyRow, wrapKey } from './field-encryption.ts';

export interface RewrapResult {
  /** Data keys (objects and thumbnails) now wrapped by the new master key. */
  rewrapped: number;
  /** Already under the new key (a resumed run). */
  alreadyNew: number;
  /** Wrapped by a key that is neither the old nor the new one: left as they are, listed by id. */
  unknownKeyIds: string[];
}

/**
 * Re-wraps every data key from the old master key to the new one. Only the 60-byte wrapped keys
 * change; blobs are not read or written. Idempotent and resumable: each batch commits on its own
 * and rows already under the new key are skipped.
 */
export async function rewrapDataKeys(
  db: Db,
  oldMasterKey: Buffer,
  newMasterKey: Buffer,
  batchSize = 500,
): Promise<RewrapResult> {
  const from = createKeyring(oldMasterKey);
  const to = createKeyring(newMasterKey);
  const result: RewrapResult = { rewrapped: 0, alreadyNew: 0, unknownKeyIds: [] };
  if (from.keyId === to.keyId) throw new Error('The new master key is the same as the current one');
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await db
      .selectFrom('images')
      .select(['id', 'wrapped_key', 'key_id', 'thumb_wrapped_key', 'thumb_key_id'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    if (!rows.length) break;
    after = rows.at(-1)!.id;
    const updates: Array<{ id: string; set: Record<string, string> }> = [];
    for (const row of rows) {
      const set: Record<string, string> = {};
      for (const [wrappedCol, idCol] of [
        ['wrapped_key', 'key_id'],
        ['thumb_wrapped_key', 'thumb_key_id'],
      ] as const) {
        const wrappedKey = row[wrappedCol];
        const keyId = row[idCol];
        if (!wrappedKey || !keyId) continue;
        if (keyId === to.keyId) {
          result.alreadyNew++;
        } else if (keyId === from.keyId) {
          const next = to.wrap(from.unwrap({ wrappedKey, keyId }));
          set[wrappedCol] = next.wrappedKey;
          set[idCol] = next.keyId;
          result.rewrapped++;
        } else if (!result.unknownKeyIds.includes(row.id)) {
          result.unknownKeyIds.push(row.id);
        }
      }
      if (Object.keys(set).length) updates.push({ id: row.id, set });
    }
    if (updates.length) {
      await db.transaction().execute(async (trx) => {
        for (const u of updates) await trx.updateTable('images').set(u.set).where('id', '=', u.id).execute();
      });
    }
  }
  return result;
}

/**
 * The field keys of crypto/field-encryption.ts (messages, analyses, the DICOM keys) are wrapped by
 * the same master key, so a rotation must carry them too or the server cannot start under the new
 * key. Unwrapped and wrapped again by that file's own functions.
 */
export async function rewrapFieldKeys(
  db: Db,
  oldMasterKey: Buffer,
  newMasterKey: Buffer,
): Promise<{ rewrapped: number; alreadyNew: number; unknown: string[] }> {
  const oldId = fieldMasterKeyId(oldMasterKey);
  const newId = fieldMasterKeyId(newMasterKey);
  const rows = await db.selectFrom('field_keys').selectAll().execute();
  const result = { rewrapped: 0, alreadyNew: 0, unknown: [] as string[] };
  const updates: Array<{ id: string; wrapped: Buffer }> = [];
  for (const row of rows) {
    if (row.master_key_id === newId) {
      result.alreadyNew++;
      continue;
    }
    if (row.master_key_id !== oldId) {
      result.unknown.push(row.id);
      continue;
    }
    const key = unwrapKeyRow(oldMasterKey, row.purpose, row);
    updates.push({ id: row.id, wrapped: wrapKey(newMasterKey, row.purpose, row.id, key) });
  }
  if (updates.length) {
    await db.transaction().execute(async (trx) => {
      for (const u of updates)
        await trx
          .updateTable('field_keys')
          .set({ wrapped_key: u.wrapped, master_key_id: newId })
          .where('id', '=', u.id)
          .execute();
    });
    result.rewrapped = updates.length;
  }
  return result;
}

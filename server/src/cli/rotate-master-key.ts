import { type RewrapResult, rewrapDataKeys, rewrapFieldKeys } from '../crypto/envelope-rewrap.ts';
import type { Db } from '../db/db.ts';
import { loadDicomKeys } from '../modules/dicom/dicom-engine.ts';

/**
 * What `keys:rewrap` does to the database (rewrap-keys.ts prints it): every image data key and every
 * field key re-wrapped from the old master key to the new one. The DICOM keys are made first if this
 * database has none yet (a rotation run before the first start of a version that keeps them): made
 * after it, under the new master key, they would no longer match the stored Patient ID keys.
 */
export async function rotateMasterKey(
  db: Db,
  oldMasterKey: Buffer,
  newMasterKey: Buffer,
): Promise<{ data: RewrapResult; fields: Awaited<ReturnType<typeof rewrapFieldKeys>> }> {
  await loadDicomKeys(db, oldMasterKey);
  const data = await rewrapDataKeys(db, oldMasterKey, newMasterKey);
  const fields = await rewrapFieldKeys(db, oldMasterKey, newMasterKey);
  return { data, fields };
}

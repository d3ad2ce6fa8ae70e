import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { rewrapFieldKeys } from '../../crypto/envelope-rewrap.ts';
import { uploadFile, fixture } from '../images/images.test-helpers.ts';
import { derivedDicomKeys, loadDicomKeys } from './dicom-engine.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const patientKeyOf = (key: Buffer, patientId: string) => createHmac('sha256', key).update(patientId).digest('hex');

describe('DICOM keys across a master key rotation', () => {
  it('keeps the Patient ID and UID-map keys of the first start, so stored patient keys match after keys:rewrap', async () => {
    const db = t.app.ctx.database.db;
    const oldKey = t.config.masterKey;
    // A database the keys were first stored in keeps what earlier versions derived from the master key.
    const first = await loadDicomKeys(db, oldKey);
    expect(first.patient.equals(derivedDicomKeys(oldKey).patient)).toBe(true);
    expect(first.uidMap.equals(derivedDicomKeys(oldKey).uidMap)).toBe(true);

    const doc = await newUser(t, 'healthProvider');
    const id = (await uploadFile(t, doc.token, fixture('dicom/ct_implicit_le_16bit_signed.dcm'))).json().data.id;
    const row = await db
      .selectFrom('images')
      .select('dicom_patient_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.dicom_patient_key).toBe(patientKeyOf(first.patient, '1CT1'));

    const newKey = randomBytes(32);
    const rewrapped = await rewrapFieldKeys(db, oldKey, newKey);
    expect(rewrapped.unknown).toEqual([]);
    const after = await loadDicomKeys(db, newKey);
    expect(after.patient.equals(first.patient)).toBe(true);
    expect(after.uidMap.equals(first.uidMap)).toBe(true);
    expect(patientKeyOf(after.patient, '1CT1')).toBe(row.dicom_patient_key);
    // Not what the new master key would derive: that is what a rotation did before the keys were kept.
    expect(after.patient.equals(derivedDicomKeys(newKey).patient)).toBe(false);
    // The old master key no longer unwraps them.
    await expect(loadDicomKeys(db, oldKey)).rejects.toThrow(/master key/);
    await rewrapFieldKeys(db, newKey, oldKey);
  });
});

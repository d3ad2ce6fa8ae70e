import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { rotateMasterKey } from '../../cli/rotate-master-key.ts';
import { fixture, uploadFile } from '../images/images.test-helpers.ts';
import { derivedDicomKeys, loadDicomKeys } from './dicom-engine.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const patientKeyOf = (key: Buffer, patientId: string) => createHmac('sha256', key).update(patientId).digest('hex');
const DICOM_PURPOSES = ['dicom-uid-map', 'dicom-patient-key'];
const forgetKeptKeys = () =>
  t.app.ctx.database.db.deleteFrom('field_keys').where('purpose', 'in', DICOM_PURPOSES).execute();

describe('DICOM keys across a master key rotation', () => {
  it('a new database gets random keys; a rotation keeps them, so stored Patient ID keys still match', async () => {
    const db = t.app.ctx.database.db;
    const oldKey = t.config.masterKey;
    // The app's start stored them, in a database no row depended on: random, not derived from the master key.
    const first = await loadDicomKeys(db, oldKey);
    expect(first.patient.equals(derivedDicomKeys(oldKey).patient)).toBe(false);
    expect(first.uidMap.equals(derivedDicomKeys(oldKey).uidMap)).toBe(false);

    const doc = await newUser(t, 'healthProvider');
    const id = (await uploadFile(t, doc.token, fixture('dicom/ct_implicit_le_16bit_signed.dcm'))).json().data.id;
    const row = await db
      .selectFrom('images')
      .select('dicom_patient_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.dicom_patient_key).toBe(patientKeyOf(first.patient, '1CT1'));

    const newKey = randomBytes(32);
    const rotated = await rotateMasterKey(db, oldKey, newKey);
    expect(rotated.fields.unknown).toEqual([]);
    const after = await loadDicomKeys(db, newKey);
    expect(after.patient.equals(first.patient)).toBe(true);
    expect(after.uidMap.equals(first.uidMap)).toBe(true);
    expect(patientKeyOf(after.patient, '1CT1')).toBe(row.dicom_patient_key);
    // The old master key no longer unwraps them.
    await expect(loadDicomKeys(db, oldKey)).rejects.toThrow(/master key/);
    await rotateMasterKey(db, newKey, oldKey);
  });

  it('a database upgraded with rows that depend on the derived keys keeps those; a rotation run before its first start too', async () => {
    const db = t.app.ctx.database.db;
    const oldKey = t.config.masterKey;
    const doc = await newUser(t, 'healthProvider');
    await uploadFile(t, doc.token, fixture('dicom/ct_explicit_le_16bit_signed_small.dcm'));
    const kept = await loadDicomKeys(db, oldKey);
    try {
      // As a version before the kept keys left it: rows hold Patient ID keys, field_keys holds no DICOM key.
      await forgetKeptKeys();
      expect((await loadDicomKeys(db, oldKey)).patient.equals(derivedDicomKeys(oldKey).patient)).toBe(true);

      // keys:rewrap run on such a database before any server started: the derived keys are stored first.
      await forgetKeptKeys();
      const newKey = randomBytes(32);
      await rotateMasterKey(db, oldKey, newKey);
      const after = await loadDicomKeys(db, newKey);
      expect(after.patient.equals(derivedDicomKeys(oldKey).patient)).toBe(true);
      expect(after.uidMap.equals(derivedDicomKeys(oldKey).uidMap)).toBe(true);
      await rotateMasterKey(db, newKey, oldKey);
    } finally {
      // Put back what the running app holds, for the other tests of this file.
      await forgetKeptKeys();
      const { loadKeptSecret } = await import('../../crypto/field-encryption.ts');
      for (const [purpose, key] of [
        ['dicom-uid-map', kept.uidMap],
        ['dicom-patient-key', kept.patient],
      ] as const)
        await loadKeptSecret({ db, masterKey: oldKey, purpose, initial: () => key });
    }
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp } from '../../test/harness.ts';
import { createFieldEncryption } from './field-encryption.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('field encryption', () => {
  it('seals with a fresh nonce each time and opens only with the same additional data', async () => {
    const enc = await createFieldEncryption({
      db: t.app.ctx.database.db,
      masterKey: t.config.masterKey,
      purpose: 'test-a',
    });
    const one = enc.seal('same text', 'row:1');
    const two = enc.seal('same text', 'row:1');
    expect(one.nonce.equals(two.nonce)).toBe(false);
    expect(one.ciphertext.equals(two.ciphertext)).toBe(false);
    expect(await enc.open(one, 'row:1')).toBe('same text');
    await expect(enc.open(one, 'row:2')).rejects.toThrow();
    const tampered = Buffer.from(one.ciphertext);
    tampered[0]! ^= 1;
    await expect(enc.open({ ...one, ciphertext: tampered }, 'row:1')).rejects.toThrow();
  });

  it('rotates to a new data key and still opens values sealed under the old one', async () => {
    const db = t.app.ctx.database.db;
    const enc = await createFieldEncryption({ db, masterKey: t.config.masterKey, purpose: 'test-b' });
    const old = enc.seal('before rotation', 'x');
    const newId = await enc.rotate();
    expect(newId).not.toBe(old.keyId);
    const fresh = enc.seal('after rotation', 'x');
    expect(fresh.keyId).toBe(newId);
    // Another instance (a new object) reads both through the stored, wrapped keys.
    const other = await createFieldEncryption({ db, masterKey: t.config.masterKey, purpose: 'test-b' });
    expect(other.activeKeyId()).toBe(newId);
    expect(await other.open(old, 'x')).toBe('before rotation');
    expect(await other.open(fresh, 'x')).toBe('after rotation');
    const stored = await db.selectFrom('field_keys').selectAll().where('purpose', '=', 'test-b').execute();
    expect(stored).toHaveLength(2);
    expect(stored.filter((k) => k.retired_at === null)).toHaveLength(1);
  });

  it('refuses to start under a different master key, naming the mismatch', async () => {
    await createFieldEncryption({ db: t.app.ctx.database.db, masterKey: t.config.masterKey, purpose: 'test-c' });
    await expect(
      createFieldEncryption({ db: t.app.ctx.database.db, masterKey: randomBytes(32), purpose: 'test-c' }),
    ).rejects.toThrow(/wrapped by master key/);
  });
});

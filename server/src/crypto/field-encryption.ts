import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../db/db.ts';

/**
 * Short text fields (message content) encrypted at rest: AES-256-GCM with a fresh 96-bit nonce per
 * value under a data key; data keys are stored wrapped (AES-256-GCM) by the master key and named by
 * id, so a new key can take over (`rotate`) while older rows stay readable under theirs.
 * Additional authenticated data binds a ciphertext to its row: a value copied into another row
 * (another conversation) fails to decrypt instead of showing up there.
 */

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

export interface SealedField {
  keyId: string;
  nonce: Buffer;
  /** Ciphertext followed by the 16-byte GCM tag. */
  ciphertext: Buffer;
}

export class FieldKeyError extends Error {}

/** Which master key wrapped a data key: a short fingerprint, so a wrong MASTER_KEY is named at once. */
export function masterKeyId(masterKey: Buffer): string {
  return createHash('sha256').update('medshare-master-key-id').update(masterKey).digest('hex').slice(0, 16);
}

function gcmEncrypt(key: Buffer, plaintext: Buffer, aad: Buffer): { nonce: Buffer; ciphertext: Buffer } {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { nonce, ciphertext: Buffer.concat([body, cipher.getAuthTag()]) };
}

function gcmDecrypt(key: Buffer, nonce: Uint8Array, sealed: Uint8Array, aad: Buffer): Buffer {
  const data = Buffer.from(sealed);
  if (nonce.length !== NONCE_BYTES || data.length < TAG_BYTES) throw new FieldKeyError('malformed ciphertext');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce), { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]);
}

const wrapAad = (purpose: string, keyId: string) => Buffer.from(`medshare:field-key:v1:${purpose}:${keyId}`);

interface KeyRow {
  id: string;
  wrapped_key: Uint8Array;
  master_key_id: string;
}

/** A data key wrapped by the master key, as field_keys stores it: nonce | ciphertext | tag, bound to purpose and id. */
export function wrapKey(masterKey: Buffer, purpose: string, id: string, key: Buffer): Buffer {
  const { nonce, ciphertext } = gcmEncrypt(masterKey, key, wrapAad(purpose, id));
  return Buffer.concat([nonce, ciphertext]);
}

/** A field_keys row's data key; refused when another master key wrapped it. */
export function unwrapKeyRow(masterKey: Buffer, purpose: string, row: KeyRow): Buffer {
  const masterId = masterKeyId(masterKey);
  if (row.master_key_id !== masterId) {
    throw new FieldKeyError(
      `data key ${row.id} was wrapped by master key ${row.master_key_id}, but MASTER_KEY is ${masterId}`,
    );
  }
  const wrapped = Buffer.from(row.wrapped_key);
  return gcmDecrypt(
    masterKey,
    wrapped.subarray(0, NONCE_BYTES),
    wrapped.subarray(NONCE_BYTES),
    wrapAad(purpose, row.id),
  );
}

/** The purpose's active key row; when there is none, one is made with `newKey()`, wrapped by the master key. */
async function activeKeyRow(db: Db, masterKey: Buffer, purpose: string, newKey: () => Buffer): Promise<KeyRow> {
  const find = () =>
    db
      .selectFrom('field_keys')
      .selectAll()
      .where('purpose', '=', purpose)
      .where('retired_at', 'is', null)
      .executeTakeFirst();
  const found = await find();
  if (found) return found;
  const id = randomUUID();
  // Several instances may start at once: the partial unique index lets exactly one key win.
  await db
    .insertInto('field_keys')
    .values({
      id,
      purpose,
      wrapped_key: wrapKey(masterKey, purpose, id, newKey()),
      master_key_id: masterKeyId(masterKey),
    })
    .onConflict((oc) => oc.column('purpose').where('retired_at', 'is', null).doNothing())
    .execute();
  const row = await find();
  if (!row) throw new FieldKeyError(`no active ${purpose} data key`);
  return row;
}

/**
 * A secret whose outputs are stored, so that it must stay the same when the master key is rotated
 * (the DICOM Patient ID key and the de-identification UID map, modules/dicom/dicom-engine.ts): kept
 * in field_keys, wrapped by the master key, which `keys:rewrap` re-wraps with every other field key
 * (crypto/envelope-rewrap.ts). The first start stores `initial()`; the secret never rotates.
 */
export async function loadKeptSecret({
  db,
  masterKey,
  purpose,
  initial,
}: {
  db: Db;
  masterKey: Buffer;
  purpose: string;
  initial: () => Buffer;
}): Promise<Buffer> {
  if (masterKey.length !== KEY_BYTES) throw new FieldKeyError('the master key must be 32 bytes');
  return unwrapKeyRow(masterKey, purpose, await activeKeyRow(db, masterKey, purpose, initial));
}

export async function createFieldEncryption({
  db,
  masterKey,
  purpose,
}: {
  db: Db;
  masterKey: Buffer;
  purpose: string;
}) {
  if (masterKey.length !== KEY_BYTES) throw new FieldKeyError('the master key must be 32 bytes');
  const keys = new Map<string, Buffer>();
  let active: { id: string; key: Buffer } | null = null;

  function unwrap(row: KeyRow): Buffer {
    const key = unwrapKeyRow(masterKey, purpose, row);
    keys.set(row.id, key);
    return key;
  }

  async function loadActive(): Promise<{ id: string; key: Buffer }> {
    const row = await activeKeyRow(db, masterKey, purpose, () => randomBytes(KEY_BYTES));
    return { id: row.id, key: keys.get(row.id) ?? unwrap(row) };
  }

  async function keyById(id: string): Promise<Buffer> {
    const cached = keys.get(id);
    if (cached) return cached;
    const row = await db
      .selectFrom('field_keys')
      .selectAll()
      .where('id', '=', id)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
    if (!row) throw new FieldKeyError(`unknown ${purpose} data key ${id}`);
    return unwrap(row);
  }

  active = await loadActive();

  return {
    /** The data key new values are sealed under (another instance may have rotated since). */
    activeKeyId: () => active!.id,

    seal(plaintext: string, aad: string): SealedField {
      const { nonce, ciphertext } = gcmEncrypt(active!.key, Buffer.from(plaintext, 'utf8'), Buffer.from(aad));
      return { keyId: active!.id, nonce, ciphertext };
    },

    /** Throws when the value was tampered with, moved to another row or sealed under an unknown key. */
    async open(field: { keyId: string; nonce: Uint8Array; ciphertext: Uint8Array }, aad: string): Promise<string> {
      const key = await keyById(field.keyId);
      return gcmDecrypt(key, field.nonce, field.ciphertext, Buffer.from(aad)).toString('utf8');
    },

    /** Retires the active data key and starts a new one; rows sealed before stay readable. */
    async rotate(): Promise<string> {
      await db
        .updateTable('field_keys')
        .set({ retired_at: new Date() })
        .where('purpose', '=', purpose)
        .where('retired_at', 'is', null)
        .execute();
      active = await loadActive();
      return active.id;
    },

    /** Picks up a key another instance rotated to. */
    async refresh(): Promise<void> {
      active = await loadActive();
    },
  };
}
export type FieldEncryption = Awaited<ReturnType<typeof createFieldEncryption>>;

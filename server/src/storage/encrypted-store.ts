import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  type ExpectedPlaintext,
  type Keyring,
  type WrappedKey,
  ENVELOPE_FORMAT,
  decryptChunks,
  encryptChunks,
  encryptedSize,
} from '../crypto/envelope.ts';
import type { BlobStorage } from './storage.ts';

export interface StoredObject extends WrappedKey {
  format: number;
}

/** Blob storage that only ever sees ciphertext: a fresh data key per object, wrapped by the master key. */
export function createEncryptedStore(storage: BlobStorage, keyring: Keyring) {
  return {
    storage,
    keyId: keyring.keyId,

    /**
     * Encrypts `plaintext` as it streams into the store. Resolves when the blob is durable; on any
     * error (including one thrown by the plaintext source) the partial blob is gone.
     */
    async put(key: string, plaintext: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredObject> {
      const { dataKey, wrapped } = keyring.newDataKey();
      await storage.put(key, Readable.from(encryptChunks(plaintext, dataKey), { objectMode: false }));
      return { ...wrapped, format: ENVELOPE_FORMAT };
    },

    async putBuffer(key: string, plaintext: Buffer): Promise<StoredObject & { sha256: string; size: number }> {
      const stored = await this.put(key, [plaintext]);
      return { ...stored, sha256: createHash('sha256').update(plaintext).digest('hex'), size: plaintext.length };
    },

    /**
     * The plaintext as a stream. The data key is unwrapped before anything is returned (a wrong
     * master key fails here, cleanly); tags and the digest are checked as the stream is read, and
     * a failure destroys the stream instead of ending it.
     */
    async open(key: string, wrapped: WrappedKey, expected: ExpectedPlaintext): Promise<Readable> {
      const dataKey = keyring.unwrap(wrapped);
      const source = await storage.get(key, encryptedSize(expected.size));
      return Readable.from(decryptChunks(source, dataKey, expected), { objectMode: false });
    },
  };
}
export type EncryptedStore = ReturnType<typeof createEncryptedStore>;

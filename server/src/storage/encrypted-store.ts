import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  type ExpectedPlaintext,
  IntegrityError,
  type Keyring,
  type WrappedKey,
  ENVELOPE_FORMAT,
  decryptChunks,
  decryptPieces,
  decryptWhole,
  encryptChunks,
  encryptedSize,
  keyObjectOf,
} from '../crypto/envelope.ts';
import type { BlobStorage } from './storage.ts';

export interface StoredObject extends WrappedKey {
  format: number;
}

/** What `put` stored, with the size and SHA-256 of exactly the plaintext it sealed. */
export interface SealedObject extends StoredObject {
  sha256: string;
  size: number;
}

/** A value's key, derived from an object's data key for one purpose (never the data key itself). */
const valueKey = (dataKey: Buffer, purpose: string) =>
  keyObjectOf(Buffer.from(hkdfSync('sha256', keyObjectOf(dataKey), Buffer.alloc(0), `medshare:${purpose}:v1`, 32)));

/**
 * Buffers that whole reads of ciphertext reuse: a study retrieve reads hundreds of objects one after
 * another, and a fresh buffer for each was a third of what it allocated outside V8's heap, which
 * starts a full collection every 64 MiB of it (docs/decisions.md › Fewer buffers per WADO-RS
 * instance). They only ever hold ciphertext, are read synchronously by the decryption and are taken
 * back before it returns; at most SPARE_COUNT of SPARE_BYTES are kept.
 */
const SPARE_BYTES = 1024 * 1024 + 1;
const SPARE_COUNT = 8;

/**
 * Most objects whose plaintext digest this process knows (`sealedDigests`): ~200 bytes each. A
 * forgotten one is checked with its SHA-256 again on its next whole read.
 */
const KNOWN_DIGESTS_MAX = 20_000;

/** Blob storage that only ever sees ciphertext: a fresh data key per object, wrapped by the master key. */
export function createEncryptedStore(storage: BlobStorage, keyring: Keyring) {
  const spares: Buffer[] = [];
  /**
   * Objects this process sealed, or read whole and matched with their SHA-256, by storage key,
   * wrapped data key, digest and size. A whole read of one skips the SHA-256 (12 % of a content
   * read's main thread, docs/decisions.md › Plaintext digests known to the process): a data key seals
   * one object once, so the chunk tags, which every read still checks, pass only for those very
   * bytes. A row pointing at another object's blob or key, or naming another digest, is not found
   * here and is checked in full.
   */
  const sealedDigests = new Set<string>();
  const digestEntry = (key: string, wrapped: WrappedKey, expected: ExpectedPlaintext) =>
    `${key}\n${wrapped.wrappedKey}\n${expected.sha256}\n${expected.size}`;
  const rememberDigest = (entry: string) => {
    if (sealedDigests.size >= KNOWN_DIGESTS_MAX) sealedDigests.delete(sealedDigests.values().next().value!);
    sealedDigests.add(entry);
  };
  /**
   * An object read whole and decrypted by `decrypt` (decryptWhole or decryptPieces), its ciphertext
   * read into a spare buffer that is free to be read into again once `decrypt` has returned.
   */
  async function decryptedWhole<T>(
    key: string,
    wrapped: WrappedKey,
    expected: ExpectedPlaintext,
    decrypt: (sealed: Buffer, dataKey: Buffer, expected: ExpectedPlaintext) => T,
  ): Promise<T> {
    const dataKey = keyring.unwrap(wrapped);
    const bytes = encryptedSize(expected.size);
    const entry = digestEntry(key, wrapped, expected);
    const known = sealedDigests.has(entry);
    const spare = bytes < SPARE_BYTES ? (spares.pop() ?? Buffer.allocUnsafeSlow(SPARE_BYTES)) : undefined;
    try {
      const sealed = await storage.getWhole!(key, bytes, spare);
      const plain = decrypt(sealed, dataKey, known ? { ...expected, digestKnown: true } : expected);
      if (!known) rememberDigest(entry);
      return plain;
    } finally {
      if (spare && spares.length < SPARE_COUNT) spares.push(spare);
    }
  }

  return {
    storage,
    keyId: keyring.keyId,

    /**
     * Encrypts `plaintext` as it streams into the store. Resolves when the blob is durable; on any
     * error (including one thrown by the plaintext source) the partial blob is gone.
     */
    async put(key: string, plaintext: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<SealedObject> {
      const { dataKey, wrapped } = keyring.newDataKey();
      const digest = createHash('sha256');
      let size = 0;
      const seen = (piece: Uint8Array) => {
        digest.update(piece);
        size += piece.length;
      };
      await storage.put(key, Readable.from(encryptChunks(plaintext, dataKey, undefined, seen), { objectMode: false }));
      const sealed = { ...wrapped, format: ENVELOPE_FORMAT, sha256: digest.digest('hex'), size };
      rememberDigest(digestEntry(key, sealed, sealed));
      return sealed;
    },

    putBuffer(key: string, plaintext: Buffer): Promise<SealedObject> {
      return this.put(key, [plaintext]);
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

    /**
     * The whole plaintext in one fresh ArrayBuffer of the expected size: one copy of the object,
     * never chunks plus their concatenation; a buffer of its own, so that it can be moved to a worker.
     */
    async readAll(key: string, wrapped: WrappedKey, expected: ExpectedPlaintext): Promise<ArrayBuffer> {
      // A driver that reads an object in one piece: one read, the chunks decrypted in one go, no stream.
      if (storage.getWhole) return (await decryptedWhole(key, wrapped, expected, decryptWhole)).buffer as ArrayBuffer;
      const stream = await this.open(key, wrapped, expected);
      const out = new Uint8Array(new ArrayBuffer(expected.size));
      let at = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        if (at + chunk.length > out.length) {
          stream.destroy();
          throw new IntegrityError('stored object is longer than recorded');
        }
        out.set(chunk, at);
        at += chunk.length;
      }
      // The digest check at the end of the stream already refuses a short object; this is a second guard.
      if (at !== out.length) throw new IntegrityError('stored object is shorter than recorded');
      return out.buffer;
    },

    /**
     * The whole plaintext, checked whole before it is returned, as the chunks the cipher made (no
     * buffer joining them): for an answer that writes them out in turn. From a driver without whole
     * reads, one piece (readAll's buffer).
     */
    async readPieces(key: string, wrapped: WrappedKey, expected: ExpectedPlaintext): Promise<Buffer[]> {
      if (storage.getWhole) return decryptedWhole(key, wrapped, expected, decryptPieces);
      return [Buffer.from(await this.readAll(key, wrapped, expected))];
    },

    /**
     * Seals a small value that belongs to a stored object (e.g. its parsed metadata) under a key
     * derived from the object's data key: re-wrapping the master key covers it, and it opens only
     * with the object's key. AES-256-GCM, `aad` binds it to its row. Format: nonce | ciphertext | tag.
     */
    sealValue(wrapped: WrappedKey, purpose: string, aad: string, plaintext: Uint8Array): Buffer {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', valueKey(keyring.unwrap(wrapped), purpose), nonce);
      cipher.setAAD(Buffer.from(aad));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return Buffer.concat([nonce, body, cipher.getAuthTag()]);
    },

    /** Opens what sealValue sealed; IntegrityError when it was altered or belongs to another row. */
    openValue(wrapped: WrappedKey, purpose: string, aad: string, sealed: Uint8Array): Buffer {
      if (sealed.length < 28) throw new IntegrityError('sealed value is too short');
      try {
        const decipher = createDecipheriv(
          'aes-256-gcm',
          valueKey(keyring.unwrap(wrapped), purpose),
          sealed.subarray(0, 12),
        );
        decipher.setAAD(Buffer.from(aad));
        decipher.setAuthTag(sealed.subarray(sealed.length - 16));
        return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
      } catch (err) {
        if (err instanceof IntegrityError) throw err;
        throw new IntegrityError('sealed value failed authentication');
      }
    },
  };
}
export type EncryptedStore = ReturnType<typeof createEncryptedStore>;

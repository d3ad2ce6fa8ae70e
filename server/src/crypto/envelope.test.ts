import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  IntegrityError,
  createKeyring,
  decryptChunks,
  decryptPieces,
  decryptWhole,
  encryptChunks,
  encryptedSize,
} from './envelope.ts';

const collect = async (it: AsyncIterable<Buffer>) => {
  const out: Buffer[] = [];
  for await (const c of it) out.push(c);
  return Buffer.concat(out);
};
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** Feeds bytes in uneven pieces, as a network would. */
async function* pieces(b: Buffer, size = 1000) {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

describe('envelope encryption', () => {
  const key = randomBytes(32);
  const chunk = 4096;

  it('round-trips plaintexts of every size around the chunk boundary', async () => {
    for (const size of [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk, 3 * chunk + 17]) {
      const plain = randomBytes(size);
      const sealed = await collect(encryptChunks(pieces(plain), key, chunk));
      expect(sealed.length).toBe(encryptedSize(size, chunk));
      const opened = await collect(decryptChunks(pieces(sealed, 777), key, { sha256: sha(plain), size }));
      expect(opened.equals(plain), `size ${size}`).toBe(true);
    }
  });

  it('detects a flipped bit, a dropped final chunk, an appended chunk and a wrong data key', async () => {
    const plain = randomBytes(3 * chunk + 5);
    const sealed = await collect(encryptChunks([plain], key, chunk));
    const expected = { sha256: sha(plain), size: plain.length };
    const flipped = Buffer.from(sealed);
    flipped[20] = flipped[20]! ^ 1;
    await expect(collect(decryptChunks([flipped], key, expected))).rejects.toBeInstanceOf(IntegrityError);
    const truncated = sealed.subarray(0, 15 + 3 * (chunk + 16));
    await expect(collect(decryptChunks([truncated], key, expected))).rejects.toBeInstanceOf(IntegrityError);
    const appended = Buffer.concat([sealed, sealed.subarray(15, 15 + chunk + 16)]);
    await expect(collect(decryptChunks([appended], key, expected))).rejects.toBeInstanceOf(IntegrityError);
    await expect(collect(decryptChunks([sealed], randomBytes(32), expected))).rejects.toBeInstanceOf(IntegrityError);
  });

  it('refuses a plaintext whose digest or size does not match the row, before yielding the last bytes', async () => {
    const plain = randomBytes(100);
    const sealed = await collect(encryptChunks([plain], key, chunk));
    const got: Buffer[] = [];
    await expect(
      (async () => {
        for await (const c of decryptChunks([sealed], key, { sha256: sha(Buffer.from('other')), size: 100 }))
          got.push(c);
      })(),
    ).rejects.toBeInstanceOf(IntegrityError);
    expect(got).toHaveLength(0);
    await expect(collect(decryptChunks([sealed], key, { sha256: sha(plain), size: 99 }))).rejects.toBeInstanceOf(
      IntegrityError,
    );
  });

  it('decryptWhole: the same plaintexts and the same refusals as the stream, from one buffer', async () => {
    for (const size of [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk, 3 * chunk + 17]) {
      const plain = randomBytes(size);
      const sealed = await collect(encryptChunks(pieces(plain), key, chunk));
      const opened = decryptWhole(sealed, key, { sha256: sha(plain), size });
      expect(Buffer.from(opened).equals(plain), `size ${size}`).toBe(true);
      expect(opened.byteLength).toBe(opened.buffer.byteLength);
    }
    const plain = randomBytes(3 * chunk + 5);
    const sealed = await collect(encryptChunks([plain], key, chunk));
    const expected = { sha256: sha(plain), size: plain.length };
    const flipped = Buffer.from(sealed);
    flipped[20] = flipped[20]! ^ 1;
    const truncated = sealed.subarray(0, 15 + 3 * (chunk + 16));
    const appended = Buffer.concat([sealed, sealed.subarray(15, 15 + chunk + 16)]);
    for (const bad of [flipped, truncated, appended, sealed.subarray(0, 10)])
      expect(() => decryptWhole(bad, key, expected)).toThrow(IntegrityError);
    expect(() => decryptWhole(sealed, randomBytes(32), expected)).toThrow(IntegrityError);
    expect(() => decryptWhole(sealed, key, { ...expected, sha256: sha(Buffer.from('x')) })).toThrow(IntegrityError);
    expect(() => decryptWhole(sealed, key, { ...expected, size: plain.length - 1 })).toThrow(IntegrityError);
    expect(() => decryptWhole(sealed, key, { ...expected, size: plain.length + 1 })).toThrow(IntegrityError);
  });

  it('decryptPieces: the chunks decryptWhole joins, and the same refusals', async () => {
    for (const size of [0, 1, chunk, 3 * chunk + 17]) {
      const plain = randomBytes(size);
      const sealed = await collect(encryptChunks(pieces(plain), key, chunk));
      const opened = decryptPieces(sealed, key, { sha256: sha(plain), size });
      expect(Buffer.concat(opened).equals(plain), `size ${size}`).toBe(true);
      expect(opened.length).toBe(Math.ceil(size / chunk));
      // The pieces are the cipher's own buffers, never views of the ciphertext (which is read into again).
      for (const piece of opened) expect(piece.buffer).not.toBe(sealed.buffer);
    }
    const plain = randomBytes(2 * chunk + 5);
    const sealed = await collect(encryptChunks([plain], key, chunk));
    const flipped = Buffer.from(sealed);
    flipped[flipped.length - 20] = flipped[flipped.length - 20]! ^ 1;
    // The last chunk is the forged one: no piece is handed out before every chunk is checked.
    expect(() => decryptPieces(flipped, key, { sha256: sha(plain), size: plain.length })).toThrow(IntegrityError);
    expect(() => decryptPieces(sealed, key, { sha256: sha(Buffer.from('x')), size: plain.length })).toThrow(
      IntegrityError,
    );
  });

  it('a whole read whose digest is known skips only the SHA-256: tags, final flag and size still refuse', async () => {
    const plain = randomBytes(2 * chunk + 5);
    const sealed = await collect(encryptChunks([plain], key, chunk));
    const known = { sha256: sha(Buffer.from('not checked')), size: plain.length, digestKnown: true };
    expect(Buffer.concat(decryptPieces(sealed, key, known)).equals(plain)).toBe(true);
    const flipped = Buffer.from(sealed);
    flipped[20] = flipped[20]! ^ 1;
    expect(() => decryptPieces(flipped, key, known)).toThrow(IntegrityError);
    expect(() => decryptWhole(sealed.subarray(0, sealed.length - 40), key, known)).toThrow(IntegrityError);
    expect(() => decryptPieces(sealed, key, { ...known, size: plain.length + 1 })).toThrow(IntegrityError);
    expect(() => decryptPieces(sealed, randomBytes(32), known)).toThrow(IntegrityError);
  });

  it('hands every plaintext piece it seals to onPlain, in order', async () => {
    const plain = randomBytes(3 * chunk + 7);
    const seen: Buffer[] = [];
    await collect(encryptChunks(pieces(plain), key, chunk, (piece) => seen.push(Buffer.from(piece))));
    expect(Buffer.concat(seen).equals(plain)).toBe(true);
  });

  it('wraps data keys with the master key and names the master key by id', () => {
    const master = randomBytes(32);
    const ring = createKeyring(master);
    const { dataKey, wrapped } = ring.newDataKey();
    expect(wrapped.keyId).toMatch(/^[0-9a-f]{8}$/);
    expect(Buffer.from(wrapped.wrappedKey, 'base64').includes(dataKey)).toBe(false);
    expect(ring.unwrap(wrapped).equals(dataKey)).toBe(true);
    expect(() => createKeyring(randomBytes(32)).unwrap(wrapped)).toThrow(IntegrityError);
    const tampered = Buffer.from(wrapped.wrappedKey, 'base64');
    tampered[15] = tampered[15]! ^ 1;
    expect(() => ring.unwrap({ ...wrapped, wrappedKey: tampered.toString('base64') })).toThrow(IntegrityError);
  });
});

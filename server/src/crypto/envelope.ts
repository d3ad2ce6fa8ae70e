import {
  type KeyObject,
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  randomBytes,
} from 'node:crypto';

/**
 * Envelope encryption for stored objects.
 *
 * Every object gets a fresh 32-byte data key; the data key is wrapped (AES-256-GCM) by the master
 * key and stored beside the row with the master key's id, so that rotating the master key
 * re-wraps 32-byte keys and never touches the blobs.
 *
 * Blob format 1 (a STREAM-style chunked AEAD, so that both directions stream):
 *   header  = 'MSE' 0x01 | chunk size (uint32 BE) | nonce prefix (7 random bytes)   (15 bytes)
 *   chunk i = AES-256-GCM(dataKey, nonce = prefix | i (uint32 BE) | final (0|1), aad = header)
 *             ciphertext | 16-byte tag
 * The last chunk (possibly empty) carries final = 1, so truncation, reordering and appending are
 * all detected by the tags alone; the SHA-256 of the plaintext is checked as well on every full read
 * whose bytes this process has not sealed or matched before (ExpectedPlaintext.digestKnown).
 */

export const ENVELOPE_FORMAT = 1;
export const DEFAULT_CHUNK_SIZE = 64 * 1024;
const MAGIC = Buffer.from([0x4d, 0x53, 0x45, ENVELOPE_FORMAT]); // 'MSE' + version
const HEADER_SIZE = 15;
const TAG_SIZE = 16;
const MAX_CHUNK_SIZE = 16 * 1024 * 1024;
const WRAP_AAD = Buffer.from('medshare:data-key:v1');

/** Stored bytes that do not decrypt or do not match their recorded digest. Never served. */
export class IntegrityError extends Error {
  override name = 'IntegrityError';
}

export interface WrappedKey {
  /** base64(iv | wrapped key | tag) */
  wrappedKey: string;
  /** First 8 hex digits of SHA-256 of the master key that wrapped it. */
  keyId: string;
}

export function masterKeyId(masterKey: Buffer): string {
  return createHash('sha256').update(masterKey).digest('hex').slice(0, 8);
}

/**
 * A key as Node's crypto wants it on a hot path: given a Buffer, createCipheriv, createHmac and
 * hkdfSync first try it as a KeyObject and as a CryptoKey, each try failing with a TypeError whose
 * stack V8 captures (Node 24): 23 µs for a cipher against 2 µs with a KeyObject, measured here.
 * createSecretKey takes a Buffer without those tries (1 µs).
 */
export const keyObjectOf = (key: Buffer): KeyObject => createSecretKey(key);

/** Wraps and unwraps data keys with one master key. */
export function createKeyring(masterKeyBytes: Buffer) {
  if (masterKeyBytes.length !== 32) throw new Error('The master key must be 32 bytes');
  const keyId = masterKeyId(masterKeyBytes);
  const masterKey = keyObjectOf(masterKeyBytes);

  function wrap(dataKey: Buffer): WrappedKey {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
    cipher.setAAD(WRAP_AAD);
    const body = Buffer.concat([cipher.update(dataKey), cipher.final()]);
    return { wrappedKey: Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64'), keyId };
  }

  function unwrap(wrapped: WrappedKey): Buffer {
    if (wrapped.keyId !== keyId)
      throw new IntegrityError(`data key was wrapped by master key ${wrapped.keyId}, not the configured ${keyId}`);
    const raw = Buffer.from(wrapped.wrappedKey, 'base64');
    if (raw.length !== 12 + 32 + TAG_SIZE) throw new IntegrityError('wrapped data key has the wrong length');
    try {
      const decipher = createDecipheriv('aes-256-gcm', masterKey, raw.subarray(0, 12));
      decipher.setAAD(WRAP_AAD);
      decipher.setAuthTag(raw.subarray(12 + 32));
      return Buffer.concat([decipher.update(raw.subarray(12, 12 + 32)), decipher.final()]);
    } catch {
      throw new IntegrityError('wrapped data key does not open with the master key');
    }
  }

  return {
    keyId,
    wrap,
    unwrap,
    /** A fresh random data key and its wrapped form. */
    newDataKey(): { dataKey: Buffer; wrapped: WrappedKey } {
      const dataKey = randomBytes(32);
      return { dataKey, wrapped: wrap(dataKey) };
    },
  };
}
export type Keyring = ReturnType<typeof createKeyring>;

function nonce(prefix: Buffer, index: number, final: boolean): Buffer {
  const n = Buffer.alloc(12);
  prefix.copy(n, 0);
  n.writeUInt32BE(index, 7);
  n[11] = final ? 1 : 0;
  return n;
}

/**
 * Ciphertext and tag as separate buffers: the stream takes them in turn, so they are never joined by
 * a copy. The plaintext may come in pieces (a chunk that spans two socket reads): GCM over the pieces
 * in turn is GCM over their concatenation, so they are not joined either.
 */
function sealChunk(
  dataKey: KeyObject,
  header: Buffer,
  index: number,
  final: boolean,
  plain: readonly Buffer[],
): Buffer[] {
  const cipher = createCipheriv('aes-256-gcm', dataKey, nonce(header.subarray(8, 15), index, final));
  cipher.setAAD(header);
  const out = plain.map((piece) => cipher.update(piece));
  cipher.final(); // GCM: no further bytes
  out.push(cipher.getAuthTag());
  return out;
}

function openChunk(dataKey: KeyObject, header: Buffer, index: number, final: boolean, sealed: Buffer): Buffer {
  if (sealed.length < TAG_SIZE) throw new IntegrityError('encrypted chunk is too short');
  try {
    const decipher = createDecipheriv('aes-256-gcm', dataKey, nonce(header.subarray(8, 15), index, final));
    decipher.setAAD(header);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_SIZE));
    const plain = decipher.update(sealed.subarray(0, sealed.length - TAG_SIZE));
    decipher.final(); // checks the tag (GCM yields no further bytes); throws before the plaintext is used
    return plain;
  } catch {
    throw new IntegrityError(`chunk ${index} failed authentication`);
  }
}

/**
 * Pieces of a byte stream taken out in exact lengths: a length inside one piece is a view (no
 * copy), one spanning pieces is copied once. (Joining every incoming piece onto the pending bytes
 * copied each byte once or twice more, which showed on 10 MB uploads.)
 */
class Pieces {
  private parts: Buffer[] = [];
  length = 0;

  push(piece: Uint8Array): void {
    if (!piece.length) return;
    this.parts.push(Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
    this.length += piece.length;
  }

  /** The next `n` bytes as views of the pieces they lie in (no copy). */
  takeParts(n: number): Buffer[] {
    const out: Buffer[] = [];
    for (let left = n; left > 0;) {
      const part = this.parts[0]!;
      if (part.length <= left) {
        out.push(part);
        this.parts.shift();
        left -= part.length;
      } else {
        out.push(part.subarray(0, left));
        this.parts[0] = part.subarray(left);
        left = 0;
      }
    }
    this.length -= n;
    return out;
  }

  /** The next `n` bytes in one buffer: a view when they lie in one piece, else one copy joining them. */
  take(n: number): Buffer {
    const parts = this.takeParts(n);
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, n);
  }
}

/**
 * Encrypts a stream of plaintext; holds at most one chunk (plus one incoming piece) at a time.
 * `onPlain`, when given, sees every plaintext piece as it is taken: to digest exactly what was sealed.
 */
export async function* encryptChunks(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  dataKey: Buffer,
  chunkSize = DEFAULT_CHUNK_SIZE,
  onPlain?: (piece: Uint8Array) => void,
): AsyncGenerator<Buffer> {
  // One key object for all chunks: a raw key buffer makes createCipheriv build one per chunk.
  const key = createSecretKey(dataKey);
  const header = Buffer.alloc(HEADER_SIZE);
  MAGIC.copy(header, 0);
  header.writeUInt32BE(chunkSize, 4);
  randomBytes(7).copy(header, 8);
  // A copy: every buffer yielded is the consumer's to keep or free (the header goes on into each chunk's AAD).
  yield Buffer.from(header);
  let index = 0;
  const pending = new Pieces();
  for await (const piece of source) {
    onPlain?.(piece);
    pending.push(piece);
    // Only a chunk known not to be the last may be sealed as non-final.
    while (pending.length > chunkSize) {
      for (const part of sealChunk(key, header, index++, false, pending.takeParts(chunkSize)))
        if (part.length) yield part;
    }
  }
  // An empty final chunk is its tag alone (an empty buffer is not yielded: streams read it as nothing).
  for (const part of sealChunk(key, header, index, true, pending.takeParts(pending.length)))
    if (part.length) yield part;
}

export interface ExpectedPlaintext {
  sha256: string;
  size: number;
  /**
   * A whole read may skip the SHA-256: this process sealed these bytes under this data key, or
   * matched them with this digest before (encrypted-store.ts `sealedDigests`). The tags still prove
   * every chunk, its place and the end: only the bytes sealed under a data key used once can pass.
   */
  digestKnown?: boolean;
}

/**
 * Decrypts a blob as a stream. Every chunk is authenticated before any of its bytes are yielded;
 * the final chunk is yielded only after the size and SHA-256 of the whole plaintext match, so a
 * reader never receives a complete-looking copy of bytes that fail a check.
 */
export async function* decryptChunks(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  dataKey: Buffer,
  expected?: ExpectedPlaintext,
): AsyncGenerator<Buffer> {
  const key = createSecretKey(dataKey);
  let header: Buffer | null = null;
  let frame = 0;
  let index = 0;
  const pending = new Pieces();
  const hash = createHash('sha256');
  let size = 0;
  for await (const piece of source) {
    pending.push(piece);
    if (!header) {
      if (pending.length < HEADER_SIZE) continue;
      header = Buffer.from(pending.take(HEADER_SIZE));
      if (!header.subarray(0, 4).equals(MAGIC)) throw new IntegrityError('not an encrypted blob of a known format');
      const chunkSize = header.readUInt32BE(4);
      if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE)
        throw new IntegrityError('blob header names an impossible chunk size');
      frame = chunkSize + TAG_SIZE;
    }
    while (pending.length > frame) {
      const plain = openChunk(key, header, index++, false, pending.take(frame));
      hash.update(plain);
      size += plain.length;
      yield plain;
    }
  }
  if (!header) throw new IntegrityError('blob is shorter than its header');
  const last = openChunk(key, header, index, true, pending.take(pending.length));
  hash.update(last);
  size += last.length;
  if (expected) {
    if (size !== expected.size)
      throw new IntegrityError(`plaintext is ${size} bytes, the row records ${expected.size}`);
    if (hash.digest('hex') !== expected.sha256) throw new IntegrityError('plaintext SHA-256 does not match the row');
  }
  if (last.length) yield last;
}

/**
 * Opens every chunk of a whole blob held in one buffer, in order, handing each plaintext to `take`:
 * the checks of decryptChunks (every chunk's tag, the final flag, size and SHA-256), without a
 * stream per object (a WADO-RS answer reads its instances so, `docs/architecture.md` › Studies and
 * DICOMweb). The chunks are only trusted once this returns: `take` must not let one out before.
 */
function openWhole(
  sealed: Buffer,
  dataKey: Buffer,
  expected: ExpectedPlaintext,
  take: (plain: Buffer, at: number) => void,
): void {
  if (sealed.length < HEADER_SIZE) throw new IntegrityError('blob is shorter than its header');
  const key = createSecretKey(dataKey);
  const header = Buffer.from(sealed.subarray(0, HEADER_SIZE));
  if (!header.subarray(0, 4).equals(MAGIC)) throw new IntegrityError('not an encrypted blob of a known format');
  const chunkSize = header.readUInt32BE(4);
  if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE)
    throw new IntegrityError('blob header names an impossible chunk size');
  const frame = chunkSize + TAG_SIZE;
  const hash = expected.digestKnown ? null : createHash('sha256');
  let at = HEADER_SIZE;
  let size = 0;
  for (let index = 0; ; index++) {
    const final = sealed.length - at <= frame;
    const plain = openChunk(key, header, index, final, sealed.subarray(at, final ? sealed.length : at + frame));
    at = final ? sealed.length : at + frame;
    if (size + plain.length > expected.size)
      throw new IntegrityError(`plaintext is longer than the ${expected.size} bytes the row records`);
    take(plain, size);
    size += plain.length;
    hash?.update(plain);
    if (final) break;
  }
  if (size !== expected.size) throw new IntegrityError(`plaintext is ${size} bytes, the row records ${expected.size}`);
  if (hash && hash.digest('hex') !== expected.sha256)
    throw new IntegrityError('plaintext SHA-256 does not match the row');
}

/** A whole blob's plaintext in one buffer of `expected.size` bytes, its own ArrayBuffer (it may be moved to a worker). */
export function decryptWhole(sealed: Buffer, dataKey: Buffer, expected: ExpectedPlaintext): Uint8Array {
  // Not zero-filled (a memset of every object read, 2.4 % of a WADO-RS retrieve's main thread): every
  // byte is written, and a blob that does not fill it throws before it is returned. Its own
  // ArrayBuffer (never Node's shared pool), so that it can be moved to a worker.
  const out = Buffer.allocUnsafeSlow(expected.size);
  openWhole(sealed, dataKey, expected, (plain, at) => out.set(plain, at));
  return out;
}

/**
 * A whole blob's plaintext as the chunks the cipher made, checked like decryptWhole, without the copy
 * joining them: for an answer that writes them out in turn (WADO-RS), one buffer less per object.
 */
export function decryptPieces(sealed: Buffer, dataKey: Buffer, expected: ExpectedPlaintext): Buffer[] {
  const pieces: Buffer[] = [];
  openWhole(sealed, dataKey, expected, (plain) => {
    if (plain.length) pieces.push(plain);
  });
  return pieces;
}

/** Size of the ciphertext for a plaintext of `size` bytes (header, tags, final chunk). */
export function encryptedSize(size: number, chunkSize = DEFAULT_CHUNK_SIZE): number {
  const chunks = Math.max(1, Math.ceil(size / chunkSize));
  return HEADER_SIZE + size + chunks * TAG_SIZE;
}

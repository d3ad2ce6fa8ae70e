import fs, { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createHash, randomBytes } from 'node:crypto';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IntegrityError, createKeyring } from '../crypto/envelope.ts';
import { createEncryptedStore } from './encrypted-store.ts';
import { createFsStorage, syncReadGate } from './fs-storage.ts';
import { createS3Storage } from './s3-storage.ts';
import { type BlobStorage, BlobNotFoundError } from './storage.ts';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'medshare-storage-'));
  dirs.push(d);
  return d;
};

let s3server: S3rver;
let s3endpoint = '';
beforeAll(async () => {
  s3server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: tempDir(),
    configureBuckets: [{ name: 'medshare-test', configs: [] }],
  });
  const { port } = await s3server.run();
  s3endpoint = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await s3server?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const drivers: Array<[string, () => BlobStorage]> = [
  ['fs', () => createFsStorage(join(tempDir(), 'blobs'))],
  [
    's3 (against s3rver)',
    () =>
      createS3Storage({
        endpoint: s3endpoint,
        region: 'us-east-1',
        bucket: 'medshare-test',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
        prefix: `t${Date.now()}/`,
      }),
  ],
];

async function keysOf(storage: BlobStorage): Promise<string[]> {
  const keys: string[] = [];
  for await (const b of storage.list()) keys.push(b.key);
  return keys;
}

async function* failingAfter(bytes: number) {
  yield randomBytes(bytes);
  throw new Error('client went away');
}

describe.each(drivers)('%s blob storage', (_name, make) => {
  it('stores, lists, reads back and deletes an encrypted object of several megabytes', async () => {
    const storage = make();
    await storage.check();
    const store = createEncryptedStore(storage, createKeyring(randomBytes(32)));
    const plain = randomBytes(9 * 1024 * 1024 + 123);
    const stored = await store.putBuffer('abcdef0123456789', plain);
    expect(await keysOf(storage)).toContain('abcdef0123456789');
    const raw = Buffer.concat(await (await storage.get('abcdef0123456789')).toArray());
    expect(raw.includes(plain.subarray(1000, 1032))).toBe(false);
    const back = Buffer.concat(await (await store.open('abcdef0123456789', stored, stored)).toArray());
    expect(back.equals(plain)).toBe(true);
    await storage.delete('abcdef0123456789');
    await storage.delete('abcdef0123456789');
    await expect(storage.get('abcdef0123456789')).rejects.toBeInstanceOf(BlobNotFoundError);
    storage.close();
  });

  it('keeps byte order when a body of many small pieces spans several write batches', async () => {
    const storage = make();
    const body = randomBytes(5 * 1024 * 1024 + 7);
    // 7 001-byte pieces: batches end mid-piece-run, and the fs driver writes one batch while gathering the next.
    const pieces = function* () {
      for (let at = 0; at < body.length; at += 7001) yield body.subarray(at, at + 7001);
    };
    expect(await storage.put('ordered-pieces-1', Readable.from(pieces()))).toEqual({ bytes: body.length });
    expect(Buffer.concat(await (await storage.get('ordered-pieces-1')).toArray()).equals(body)).toBe(true);
    await storage.delete('ordered-pieces-1');
    storage.close();
  });

  it('leaves nothing behind when the body fails midway and rethrows the body’s error', async () => {
    const storage = make();
    await expect(storage.put('failing-upload-1', Readable.from(failingAfter(6 * 1024 * 1024)))).rejects.toThrow(
      'client went away',
    );
    await expect(storage.get('failing-upload-1')).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(await keysOf(storage)).not.toContain('failing-upload-1');
    await storage.removeStalePartials(new Date(Date.now() + 1000));
    storage.close();
  });

  it('refuses keys that could name a path', async () => {
    const storage = make();
    await expect(storage.put('../../etc/passwd', Readable.from([Buffer.from('x')]))).rejects.toThrow(
      /invalid blob key/,
    );
    await expect(storage.get('..%2F..')).rejects.toThrow(/invalid blob key/);
    storage.close();
  });
});

describe('encrypted whole reads (fs)', () => {
  it('many objects read at once, whole and as pieces, each get their own bytes (read buffers are reused)', async () => {
    const storage = createFsStorage(mkdtempSync(join(tmpdir(), 'medshare-whole-')));
    const store = createEncryptedStore(storage, createKeyring(randomBytes(32)));
    // Sizes on both sides of the reused buffers' 1 MiB, and the empty object.
    const plains = [0, 1, 70_000, 300_000, 1024 * 1024 - 100, 1024 * 1024 + 100, 2_500_000].flatMap((size) => [
      randomBytes(size),
      randomBytes(size),
    ]);
    const stored = await Promise.all(plains.map((plain, i) => store.putBuffer(`whole-read-${i}`, plain)));
    for (let round = 0; round < 3; round++) {
      const [pieces, wholes] = await Promise.all([
        Promise.all(stored.map((s, i) => store.readPieces(`whole-read-${i}`, s, s))),
        Promise.all(stored.map((s, i) => store.readAll(`whole-read-${i}`, s, s))),
      ]);
      plains.forEach((plain, i) => {
        expect(Buffer.concat(pieces[i]!).equals(plain), `pieces ${i}`).toBe(true);
        expect(Buffer.from(wholes[i]!).equals(plain), `whole ${i}`).toBe(true);
      });
    }
    // A forged object fails as a whole, and the next read of a good one is still right.
    const raw = Buffer.concat(await (await storage.get('whole-read-6')).toArray());
    raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
    await storage.put('whole-read-forged', Readable.from([raw]));
    await expect(store.readPieces('whole-read-forged', stored[6]!, stored[6]!)).rejects.toThrow(IntegrityError);
    expect(Buffer.concat(await store.readPieces('whole-read-7', stored[7]!, stored[7]!)).equals(plains[7]!)).toBe(true);
    storage.close();
  });
});

describe('digests known to the store (docs/decisions.md › Plaintext digests known to the process)', () => {
  it('returns the SHA-256 and size of exactly what it sealed, and checks in full a row naming another digest, blob or key', async () => {
    const storage = createFsStorage(mkdtempSync(join(tmpdir(), 'medshare-digest-')));
    const keyring = createKeyring(randomBytes(32));
    const store = createEncryptedStore(storage, keyring);
    const [a, b] = [randomBytes(150_000), randomBytes(150_000)];
    const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    const sa = await store.put('digest-a', Readable.from([a.subarray(0, 1000), a.subarray(1000)]));
    const sb = await store.putBuffer('digest-b', b);
    expect(sa).toMatchObject({ sha256: sha(a), size: a.length });
    expect(sb).toMatchObject({ sha256: sha(b), size: b.length });
    // Known: read without the SHA-256, the bytes as sealed.
    expect(Buffer.concat(await store.readPieces('digest-a', sa, sa)).equals(a)).toBe(true);
    // Rows that do not name what was sealed: another digest; B's blob and key under A's digest (a
    // mixed-up row); A's blob with B's key.
    await expect(store.readPieces('digest-a', sa, { ...sa, sha256: sha(b) })).rejects.toThrow(IntegrityError);
    await expect(store.readPieces('digest-b', sb, { sha256: sa.sha256, size: sb.size })).rejects.toThrow(
      IntegrityError,
    );
    await expect(store.readAll('digest-a', sb, sa)).rejects.toThrow(IntegrityError);
    // Another process knows nothing: its first read checks the digest, and a wrong one is refused.
    const other = createEncryptedStore(storage, keyring);
    await expect(other.readPieces('digest-a', sa, { ...sa, sha256: sha(b) })).rejects.toThrow(IntegrityError);
    expect(Buffer.from(await other.readAll('digest-b', sb, sb)).equals(b)).toBe(true);
    // A blob changed after it was known still fails its tags.
    const raw = Buffer.concat(await (await storage.get('digest-a')).toArray());
    raw[500] = raw[500]! ^ 1;
    await storage.put('digest-a', Readable.from([raw]));
    await expect(store.readPieces('digest-a', sa, sa)).rejects.toThrow(IntegrityError);
    storage.close();
  });
});

describe('fs blob storage', () => {
  it('frees each piece it owned once written (the kernel has its copy), and the object reads back', async () => {
    const storage = createFsStorage(join(tempDir(), 'blobs'));
    // Pieces of ~700 KiB, each owning its memory: two write batches.
    const pieces = [0, 1, 2].map(() => randomBytes(700 * 1024));
    const copy = Buffer.concat(pieces);
    const shared = randomBytes(64 * 1024);
    const view = shared.subarray(1024, 2048);
    expect(await storage.put('freed-pieces-1', Readable.from([...pieces, view]))).toEqual({
      bytes: copy.length + 1024,
    });
    expect(pieces.map((p) => p.byteLength)).toEqual([0, 0, 0]);
    // A view of a larger buffer is not the driver's to free.
    expect([shared.byteLength, view.byteLength]).toEqual([64 * 1024, 1024]);
    const back = Buffer.concat(await (await storage.get('freed-pieces-1')).toArray());
    expect(back.equals(Buffer.concat([copy, shared.subarray(1024, 2048)]))).toBe(true);
    storage.close();
  });

  it('stores again after a shard directory it keeps open was removed behind its back', async () => {
    const root = join(tempDir(), 'blobs');
    const storage = createFsStorage(root);
    await storage.put('ab-first-blob', Readable.from([Buffer.from('one')]));
    rmSync(join(root, 'ab'), { recursive: true, force: true });
    await storage.put('ab-second-blob', Readable.from([Buffer.from('two')]));
    expect(Buffer.concat(await (await storage.get('ab-second-blob')).toArray()).toString()).toBe('two');
    expect(readdirSync(join(root, 'ab'))).toEqual(['ab-second-blob']);
    storage.close();
  });

  it('reads an object of the expected size in one piece, and whole whatever the size hint says', async () => {
    const storage = createFsStorage(join(tempDir(), 'blobs'));
    const body = randomBytes(150_000);
    await storage.put('sized-read-1', Readable.from([Buffer.from(body)])); // a copy: put frees what it wrote
    const exact = await (await storage.get('sized-read-1', body.length)).toArray();
    expect(exact.map((c: Buffer) => c.length)).toEqual([body.length]);
    // A wrong hint (a tampered or truncated file, another chunk size) changes how it is read, never what.
    for (const hint of [undefined, 1, 100_000, body.length - 1, body.length + 1, 10 * 1024 * 1024]) {
      const back = Buffer.concat(await (await storage.get('sized-read-1', hint)).toArray());
      expect(back.equals(body)).toBe(true);
    }
    storage.close();
  });

  it('keeps partial writes in .tmp only and removes stale ones', async () => {
    const root = join(tempDir(), 'blobs');
    const storage = createFsStorage(root);
    await expect(storage.put('partial-upload-1', Readable.from(failingAfter(1000)))).rejects.toThrow();
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
    expect(await storage.removeStalePartials(new Date(Date.now() + 1000))).toBe(0);
  });
});

/**
 * Whole reads run on the main thread while they are fast, else through libuv's pool (docs/decisions.md ›
 * Whole reads on the main thread while they are fast): both paths read the same way.
 */
const wholeReadPaths = [
  { path: 'on the main thread', syscall: 'readSync' as const, make: (root: string) => createFsStorage(root) },
  {
    path: 'through the pool',
    syscall: 'read' as const,
    // A clock on which every main-thread read takes a second: after five (of a missing object here)
    // they pause for good, and every read goes through the pool.
    make: async (root: string) => {
      let clock = 0;
      const storage = createFsStorage(root, { pauseMs: Infinity, now: () => (clock += 1000) });
      for (let i = 0; i < 5; i++) await storage.getWhole!('primes-the-gate', 10).catch(() => undefined);
      return storage;
    },
  },
];

describe.each(wholeReadPaths)('fs whole reads $path', ({ syscall, make }) => {
  it('reads whole in one read when the object has the expected length, and a shorter one to its end', async () => {
    const storage = await make(join(tempDir(), 'blobs'));
    const body = randomBytes(150_000);
    await storage.put('whole-fs-2', Readable.from([Buffer.from(body)])); // a copy: put frees what it wrote
    const reads = vi.spyOn(fs, syscall);
    const other = vi.spyOn(fs, syscall === 'read' ? 'readSync' : 'read');
    try {
      expect((await storage.getWhole!('whole-fs-2', body.length)).equals(body)).toBe(true);
      // No second read to learn what the first one's short answer already said: the end of the file.
      expect(reads).toHaveBeenCalledTimes(1);
      reads.mockClear();
      // Expected longer than it is (truncated): read on to the end (a read that answers 0).
      expect((await storage.getWhole!('whole-fs-2', body.length + 10)).equals(body)).toBe(true);
      expect(reads).toHaveBeenCalledTimes(2);
      expect(other).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
      other.mockRestore();
      storage.close();
    }
  });

  it('reads whole: a missing object or a bad key rejects, a longer one shows its extra byte, no descriptor stays open', async () => {
    const storage = await make(join(tempDir(), 'blobs'));
    const body = randomBytes(70_000);
    await storage.put('whole-fs-1', Readable.from([Buffer.from(body)])); // a copy: put frees what it wrote
    const openFds = () => readdirSync('/proc/self/fd').length;
    const before = openFds();
    const into = Buffer.alloc(200_000);
    for (let i = 0; i < 50; i++) {
      expect((await storage.getWhole!('whole-fs-1', body.length, into)).equals(body)).toBe(true);
      // A longer object than expected: maxBytes + 1 bytes, so that the caller sees it is longer.
      expect((await storage.getWhole!('whole-fs-1', 1000)).equals(body.subarray(0, 1001))).toBe(true);
      await expect(storage.getWhole!('whole-fs-missing', 10)).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(storage.getWhole!('../../etc/passwd', 10)).rejects.toThrow(/invalid blob key/);
    }
    // A directory where the object should be: the read fails (EISDIR), and its descriptor is closed.
    const root = join(tempDir(), 'blobs-dir');
    const withDir = await make(root);
    fs.mkdirSync(join(root, 'wh', 'whole-fs-dir'), { recursive: true });
    const fdsBefore = openFds();
    await expect(withDir.getWhole!('whole-fs-dir', 10)).rejects.toThrow(/EISDIR/);
    expect(openFds()).toBe(fdsBefore);
    expect(openFds()).toBe(before);
    storage.close();
    withDir.close();
  });
});

describe('syncReadGate', () => {
  const gateWithClock = () => {
    const clock = { now: 1000 };
    const gate = syncReadGate({ pauseMs: 10_000, now: () => clock.now });
    /** A read of 150 KB that takes `ms`: cached under 0.3 ms. */
    const read = (ms: number) =>
      gate.timed(150_000, () => {
        clock.now += ms;
        return ms;
      });
    return { clock, gate, read };
  };

  it('pauses main-thread reads once most of the last nine were slow, for the pause, then tries again', () => {
    const { clock, gate, read } = gateWithClock();
    expect(gate.allowed()).toBe(true);
    expect(read(0.05)).toBe(0.05);
    for (let i = 0; i < 4; i++) read(0.6); // what a cold cache takes here
    expect(gate.allowed()).toBe(true);
    read(0.6); // five of the last nine (the first of which was fast): the disk
    expect(gate.allowed()).toBe(false);
    clock.now += 9_999;
    expect(gate.allowed()).toBe(false);
    clock.now += 1;
    expect(gate.allowed()).toBe(true);
    // The count starts over after a pause.
    for (let i = 0; i < 4; i++) read(0.6);
    expect(gate.allowed()).toBe(true);
  });

  it('does not pause for slow reads among fast ones (a descheduled read), and counts reads that throw', () => {
    const { clock, gate, read } = gateWithClock();
    for (let i = 0; i < 100; i++) {
      read(5);
      read(0.05);
      read(0.05);
    }
    expect(gate.allowed()).toBe(true);
    // A larger object may take longer before it is slow: 1 MiB at 500 MB/s is 2.1 ms.
    for (let i = 0; i < 9; i++) gate.timed(1024 * 1024, () => (clock.now += 1.5));
    expect(gate.allowed()).toBe(true);
    for (let i = 0; i < 5; i++)
      expect(() =>
        gate.timed(150_000, () => {
          clock.now += 3;
          throw new Error('EIO');
        }),
      ).toThrow('EIO');
    expect(gate.allowed()).toBe(false);
  });
});

import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { errorCode } from '../errors.ts';
import { freeBuffer } from './free-buffer.ts';
import { type BlobInfo, type BlobStorage, BlobNotFoundError, assertBlobKey } from './storage.ts';

const TMP = '.tmp';
const WRITE_BATCH = 1024 * 1024;
const READ_MIN = 64 * 1024;
// Larger objects are read 256 KiB at a time: a slow download holds at most about that much per stream.
const READ_MAX = 256 * 1024;

/** Writes every byte of `parts` (a short writev is finished with plain writes). */
async function writeAll(handle: FileHandle, parts: Buffer[], total: number): Promise<void> {
  if (!total) return;
  const { bytesWritten } = await handle.writev(parts);
  if (bytesWritten !== total) {
    let rest = Buffer.concat(parts).subarray(bytesWritten);
    while (rest.length) rest = rest.subarray((await handle.write(rest)).bytesWritten);
  }
  // Written: the kernel has its own copy. Freed now rather than at the next full collection.
  for (const part of parts) freeBuffer(part);
}

/**
 * Whether a whole read has all it will get: the end of the file (a read that answers 0), the buffer's
 * end (a longer object shows as maxBytes + 1), or exactly maxBytes. A read that stops short exactly at
 * maxBytes ends a file of the expected length: on a local file system a regular file's read comes back
 * short only at its end, so the read that would answer 0 is left out. A read short anywhere else is
 * followed by another. (A network or FUSE file system may answer short mid-file; a longer object there
 * is taken as its first maxBytes, which the tags and the size still authenticate.)
 */
const wholeReadDone = (bytesRead: number, at: number, out: Buffer, maxBytes: number) =>
  bytesRead === 0 || at === out.length || at === maxBytes;

const notFoundOr = (err: unknown, key: string) => (errorCode(err) === 'ENOENT' ? new BlobNotFoundError(key) : err);

/**
 * A whole read on the main thread: open, read and close as three system calls, ~20 µs for a cached
 * 150 KB object, against ~55 µs of CPU through libuv's pool, whose two hand-offs each wake a pool
 * thread and then the event loop (docs/decisions.md › Whole reads on the main thread while they are
 * fast). Rejects, never throws.
 */
function readWholeSync(path: string, key: string, out: Buffer, maxBytes: number): Promise<Buffer> {
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (err) {
    return Promise.reject(notFoundOr(err, key));
  }
  let failure: unknown = null;
  let at = 0;
  try {
    for (;;) {
      const bytesRead = fs.readSync(fd, out, at, out.length - at, at);
      at += bytesRead;
      if (wholeReadDone(bytesRead, at, out, maxBytes)) break;
    }
  } catch (err) {
    failure = err;
  }
  try {
    fs.closeSync(fd);
  } catch (err) {
    failure ??= err;
  }
  return failure ? Promise.reject(failure) : Promise.resolve(out.subarray(0, at));
}

/**
 * The same through libuv's pool, with plain callbacks rather than a FileHandle (whose object, promises
 * and close tracking cost CPU on every read: docs/decisions.md › A content read's file and answer). The
 * descriptor is closed synchronously: closing a file opened only for reading does no I/O.
 */
function readWhole(path: string, key: string, out: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    fs.open(path, 'r', (err, fd) => {
      if (err) return reject(notFoundOr(err, key));
      let at = 0;
      const finish = (failure: unknown) => {
        try {
          fs.closeSync(fd);
        } catch (closeErr) {
          failure ??= closeErr;
        }
        if (failure) reject(failure);
        else resolve(out.subarray(0, at));
      };
      const next = () => {
        fs.read(fd, out, at, out.length - at, at, (readErr, bytesRead) => {
          if (readErr) return finish(readErr);
          at += bytesRead;
          if (wholeReadDone(bytesRead, at, out, maxBytes)) return finish(null);
          next();
        });
      };
      next();
    });
  });
}

/**
 * How long a whole read from the page cache may take: 0.25 ms, or the time to copy its bytes at
 * 500 MB/s if longer. Cached reads here: 150 KB in 0.02–0.07 ms, 1 MiB (the largest whole read) in
 * 0.07–0.2 ms; with the cache dropped, 150 KB took 0.57 ms (median of 300).
 */
const slowReadMs = (bytes: number) => Math.max(0.25, bytes / 500_000);
/** Of the last this many main-thread reads, more than half slow means the disk. */
const SYNC_READ_WINDOW = 9;

/**
 * Whether whole reads may run on the main thread: yes, until more than half of the last
 * SYNC_READ_WINDOW took longer than a cached read would (`slowReadMs`: they waited for the disk, and
 * every request waited with them); then none for `pauseMs`, when the pool takes them, and the next one
 * tries again. A cold cache thus stalls the event loop for five disk reads per pause. A slow read now
 * and then does not pause: on a busy machine a cached read is at times descheduled for a few ms (seen in
 * `bench:retrieve` on two cores), which says nothing about the disk. Reads taken for slow wrongly only
 * send the next `pauseMs` of reads to the pool, as every read went before.
 */
export function syncReadGate({ pauseMs, now = () => performance.now() }: SyncReadOptions) {
  let pausedUntil = 0;
  let recent: boolean[] = [];
  return {
    allowed: () => now() >= pausedUntil,
    /** Times `read` of `bytes` (which runs on the main thread) and pauses the gate when reads turn slow. */
    timed<T>(bytes: number, read: () => T): T {
      const started = now();
      try {
        return read();
      } finally {
        const ended = now();
        recent.push(ended - started > slowReadMs(bytes));
        if (recent.length > SYNC_READ_WINDOW) recent.shift();
        if (recent.filter(Boolean).length > SYNC_READ_WINDOW / 2) {
          pausedUntil = ended + pauseMs;
          recent = [];
        }
      }
    },
  };
}
export interface SyncReadOptions {
  pauseMs: number;
  now?: () => number;
}
export const SYNC_READ_DEFAULTS: SyncReadOptions = { pauseMs: 10_000 };

/**
 * Blobs under `<root>/<first two key chars>/<key>`. A write goes to `<root>/.tmp`, is fsync'd,
 * renamed into place and the directory fsync'd: after a crash a blob is either whole or absent.
 */
export function createFsStorage(root: string, syncRead: SyncReadOptions = SYNC_READ_DEFAULTS): BlobStorage {
  const syncReads = syncReadGate(syncRead);
  const tmpDir = join(root, TMP);
  let ready: Promise<void> | null = null;
  const ensureRoot = () => (ready ??= mkdir(tmpDir, { recursive: true, mode: 0o700 }).then(() => undefined));
  const dirOf = (key: string) => join(root, key.slice(0, 2));
  const pathOf = (key: string) => join(dirOf(key), key);
  // Shard directories (at most 36²) are created once and kept open: fsync'ing the open handle makes
  // a rename durable without a mkdir, open and close per blob.
  const shards = new Map<string, Promise<FileHandle>>();
  const shardOf = (key: string): Promise<FileHandle> => {
    const dir = dirOf(key);
    let handle = shards.get(dir);
    if (!handle) {
      handle = mkdir(dir, { recursive: true, mode: 0o700 }).then(() => open(dir, 'r'));
      shards.set(dir, handle);
      handle.catch(() => shards.delete(dir));
    }
    return handle;
  };
  const forgetShard = (dir: string) => {
    void shards
      .get(dir)
      ?.then((h) => h.close())
      .catch(() => undefined);
    shards.delete(dir);
  };

  return {
    kind: 'fs',

    async put(key: string, body: Readable) {
      assertBlobKey(key);
      await ensureRoot();
      const tmp = join(tmpDir, `${key}.${randomUUID()}`);
      let bytes = 0;
      try {
        const handle = await open(tmp, 'wx', 0o600);
        // Pieces are gathered into ~1 MiB writev calls: one system call (and one thread-pool round
        // trip) per MiB instead of two per 64 KiB envelope chunk, and no copies. One batch is
        // written while the next is received and encrypted, so a write that stalls on the disk
        // (journal commits, writeback) overlaps the network instead of adding to it; at most two
        // batches are held.
        let writing: Promise<void> = Promise.resolve();
        try {
          let batch: Buffer[] = [];
          let batched = 0;
          for await (const piece of body as AsyncIterable<Buffer>) {
            bytes += piece.length;
            batch.push(piece);
            batched += piece.length;
            if (batched >= WRITE_BATCH) {
              await writing;
              writing = writeAll(handle, batch, batched);
              writing.catch(() => undefined); // rethrown by the next await; never unhandled meanwhile
              batch = [];
              batched = 0;
            }
          }
          await writing;
          await writeAll(handle, batch, batched);
          await handle.sync();
        } finally {
          // A failed source must not close the file under a write still in flight.
          await writing.catch(() => undefined);
          await handle.close();
        }
        let shard = await shardOf(key);
        try {
          await rename(tmp, pathOf(key));
        } catch (err) {
          // The shard directory was removed behind our back (by hand, a restore): make it again once.
          if (errorCode(err) !== 'ENOENT') throw err;
          forgetShard(dirOf(key));
          shard = await shardOf(key);
          await rename(tmp, pathOf(key));
        }
        await shard.sync();
        return { bytes };
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        throw err;
      }
    },

    async get(key: string, expectedBytes?: number) {
      assertBlobKey(key);
      const path = pathOf(key);
      // Opening first turns a missing file into a clean error instead of a stream failure later.
      const handle = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') throw new BlobNotFoundError(key);
        throw err;
      });
      // An object up to READ_MAX is read in one system call (and one thread-pool round trip) and
      // decrypted from that one buffer, instead of 64 KiB reads whose chunk frames straddle reads.
      const highWaterMark = expectedBytes ? Math.min(Math.max(expectedBytes, READ_MIN), READ_MAX) : READ_MIN;
      return handle.createReadStream({ highWaterMark });
    },

    getWhole(key: string, maxBytes: number, into?: Buffer) {
      try {
        assertBlobKey(key);
      } catch (err) {
        return Promise.reject(err);
      }
      // One read for the whole object; one byte more shows a longer one.
      const out =
        into && into.length > maxBytes ? into.subarray(0, maxBytes + 1) : Buffer.allocUnsafeSlow(maxBytes + 1);
      const path = pathOf(key);
      return syncReads.allowed()
        ? syncReads.timed(maxBytes, () => readWholeSync(path, key, out, maxBytes))
        : readWhole(path, key, out, maxBytes);
    },

    async delete(key: string) {
      assertBlobKey(key);
      await rm(pathOf(key), { force: true });
    },

    async *list(): AsyncIterable<BlobInfo> {
      await ensureRoot();
      for (const dir of await readdir(root, { withFileTypes: true })) {
        if (!dir.isDirectory() || dir.name === TMP) continue;
        for (const name of await readdir(join(root, dir.name)).catch(() => [] as string[])) {
          const s = await stat(join(root, dir.name, name)).catch(() => null);
          if (s?.isFile()) yield { key: name, modifiedAt: s.mtime };
        }
      }
    },

    async removeStalePartials(before: Date) {
      await ensureRoot();
      let removed = 0;
      for (const name of await readdir(tmpDir)) {
        const s = await stat(join(tmpDir, name)).catch(() => null);
        if (s && s.mtime < before) {
          await rm(join(tmpDir, name), { force: true });
          removed++;
        }
      }
      return removed;
    },

    async check() {
      await ensureRoot();
      await stat(root);
    },

    close() {
      for (const dir of [...shards.keys()]) forgetShard(dir);
    },
  };
}

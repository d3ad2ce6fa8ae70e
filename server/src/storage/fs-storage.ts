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
 * Blobs under `<root>/<first two key chars>/<key>`. A write goes to `<root>/.tmp`, is fsync'd,
 * renamed into place and the directory fsync'd: after a crash a blob is either whole or absent.
 */
export function createFsStorage(root: string): BlobStorage {
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
      // Plain callbacks, not a FileHandle: every content read comes here, and the FileHandle's object,
      // promises and close tracking cost CPU on every one (docs/decisions.md › A content read's file
      // and answer). The descriptor is closed synchronously: closing a file opened only for reading
      // does no I/O, and it saves a thread-pool round trip per read.
      return new Promise<Buffer>((resolve, reject) => {
        assertBlobKey(key); // thrown here, it rejects the promise
        // One read (and one thread-pool round trip) for the whole object; one byte more shows a longer one.
        const out =
          into && into.length > maxBytes ? into.subarray(0, maxBytes + 1) : Buffer.allocUnsafeSlow(maxBytes + 1);
        fs.open(pathOf(key), 'r', (err, fd) => {
          if (err) return reject(err.code === 'ENOENT' ? new BlobNotFoundError(key) : err);
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
              // Done at the end of the file, or at the buffer's end (a longer object shows as maxBytes + 1).
              // A read that stops short exactly at maxBytes ends a file of the expected length: on a local
              // file system a regular file's read comes back short only at its end, so the read that would
              // answer 0 (a thread-pool round trip, one of a content read's three) is left out. A read
              // short anywhere else is followed by another. (A network or FUSE file system may answer
              // short mid-file; a longer object there is taken as its first maxBytes, which the tags and
              // the size still authenticate.)
              if (bytesRead === 0 || at === out.length || at === maxBytes) return finish(null);
              next();
            });
          };
          next();
        });
      });
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

import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type BlobInfo, type BlobStorage, BlobNotFoundError, assertBlobKey } from './storage.ts';

const TMP = '.tmp';

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
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

  return {
    kind: 'fs',

    async put(key: string, body: Readable) {
      assertBlobKey(key);
      await ensureRoot();
      const tmp = join(tmpDir, `${key}.${randomUUID()}`);
      let bytes = 0;
      body.on('data', (c: Buffer) => {
        bytes += c.length;
      });
      try {
        await pipeline(body, createWriteStream(tmp, { mode: 0o600, flags: 'wx' }));
        await fsyncPath(tmp);
        await mkdir(dirOf(key), { recursive: true, mode: 0o700 });
        await rename(tmp, pathOf(key));
        await fsyncPath(dirOf(key));
        return { bytes };
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        throw err;
      }
    },

    async get(key: string) {
      assertBlobKey(key);
      const path = pathOf(key);
      // Opening first turns a missing file into a clean error instead of a stream failure later.
      const handle = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') throw new BlobNotFoundError(key);
        throw err;
      });
      return handle.createReadStream({ highWaterMark: 64 * 1024 });
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

    close() {},
  };
}

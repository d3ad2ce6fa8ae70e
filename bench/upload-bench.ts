/**
 * 10 MB upload end to end (HTTP multipart → type check → AES-256-GCM stream → fsync'd blob → row
 * → audit) against writing the same bytes encrypted to disk directly (the floor the upload path
 * can reach). Interleaved runs, medians. Run: `npx node bench/upload-bench.ts [runs]`.
 * Not part of npm test.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { encryptChunks } from '../server/src/crypto/envelope.ts';
import { outboxReader, signInOverHttp, startServer } from '../server/test/spawned-server.ts';
import { ADMIN, agent, median, multipart, request } from './support.ts';

const RUNS = Number(process.argv[2] ?? 7);
const SIZE = 10 * 1024 * 1024 - 4096; // just under the 10 MB limit (multipart framing is not counted)
const dataDir = mkdtempSync(join(tmpdir(), 'medshare-bench-'));

async function main() {
  // PGlite and the fs driver: the single-node default.
  const server = await startServer({ dataDir, admin: ADMIN });
  const port = Number(new URL(server.base).port);
  const { token } = await signInOverHttp(server.base, outboxReader(dataDir), ADMIN.email, ADMIN.password);

  // A PDF: no thumbnail, so the figure is the upload path alone.
  const file = Buffer.concat([Buffer.from('%PDF-1.5\n'), randomBytes(SIZE - 9)]);
  const form = await multipart([
    ['caption', 'bench'],
    ['file', { name: 'bench.pdf', type: 'application/pdf', data: file }],
  ]);
  const body = form.body;
  const headers = { 'content-type': form.contentType, authorization: `Bearer ${token}` };

  const upload: number[] = [];
  const disk: number[] = [];
  const diskDir = mkdtempSync(join(dataDir, 'disk-'));
  for (let i = 0; i < RUNS + 1; i++) {
    let t0 = performance.now();
    const res = await request(port, 'POST', '/api/upload/image', body, headers);
    if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${res.body.toString()}`);
    const up = performance.now() - t0;

    t0 = performance.now();
    const path = join(diskDir, `blob-${i}`);
    async function* pieces() {
      for (let o = 0; o < file.length; o += 64 * 1024) yield file.subarray(o, o + 64 * 1024);
    }
    await pipeline(Readable.from(encryptChunks(pieces(), randomBytes(32))), createWriteStream(path));
    const h = await open(path, 'r');
    await h.sync();
    await h.close();
    const dk = performance.now() - t0;
    if (i === 0) continue; // warm-up
    upload.push(file.length / 1048576 / (up / 1000));
    disk.push(file.length / 1048576 / (dk / 1000));
  }
  await server.stop('SIGTERM');
  agent.destroy();
  const u = median(upload);
  const d = median(disk);
  console.log(`machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, node ${process.version}`);
  console.log(
    `10 MB upload end to end (HTTP multipart, PGlite, fs driver): median ${u.toFixed(0)} MB/s over ${RUNS} runs [${upload.map((x) => x.toFixed(0)).join(', ')}]`,
  );
  console.log(
    `same bytes encrypted (64 KiB chunks) and fsync'd to disk:     median ${d.toFixed(0)} MB/s over ${RUNS} runs [${disk.map((x) => x.toFixed(0)).join(', ')}]`,
  );
  console.log(`ratio upload / disk: ${(u / d).toFixed(2)}`);
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
});

/**
 * 10 MB upload end to end (HTTP multipart → type check → AES-256-GCM stream → fsync'd blob → row
 * → audit) against writing the same bytes encrypted to disk directly (the floor the upload path
 * can reach). Interleaved runs, medians. Run: `npx node bench/upload-bench.ts [runs]`.
 * Not part of npm test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { encryptChunks } from '../server/src/crypto/envelope.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = Number(process.argv[2] ?? 7);
const SIZE = 10 * 1024 * 1024 - 4096; // just under the 10 MB limit (multipart framing is not counted)
const ADMIN = { email: 'bench@medshare.local', password: 'Bench-admin-password-1' };
const dataDir = mkdtempSync(join(tmpdir(), 'medshare-bench-'));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
function request(
  port: number,
  method: string,
  path: string,
  body: Buffer | null,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

function latestCode(): string {
  const dir = join(dataDir, 'outbox');
  const newest = readdirSync(dir)
    .map((n) => ({ n, t: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.t - a.t)[0]!;
  return /^(\d{6})\r?$/m.exec(readFileSync(join(dir, newest.n), 'utf8'))![1]!;
}

async function startServer(): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'server/src/main.ts')], {
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      MAIL_TRANSPORT: 'outbox',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      WEB_DIST: join(dataDir, 'no-web'),
    },
    stdio: 'inherit',
  });
  for (;;) {
    const ok = await request(port, 'GET', '/api/health', null, {})
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return { port, child };
    await new Promise((r) => setTimeout(r, 100));
  }
}

const json = { 'content-type': 'application/json' };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const { port, child } = await startServer();
  await request(port, 'POST', '/api/auth/login', Buffer.from(JSON.stringify(ADMIN)), json);
  const confirm = await request(
    port,
    'POST',
    '/api/auth/confirm',
    Buffer.from(JSON.stringify({ email: ADMIN.email, code: latestCode() })),
    json,
  );
  const token = JSON.parse(confirm.body).data.token as string;

  // A PDF: no thumbnail, so the figure is the upload path alone.
  const file = Buffer.concat([Buffer.from('%PDF-1.5\n'), randomBytes(SIZE - 9)]);
  const form = new FormData();
  form.append('caption', 'bench');
  form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), 'bench.pdf');
  const built = new Request('http://x/', { method: 'POST', body: form });
  const body = Buffer.from(await built.arrayBuffer());
  const headers = { 'content-type': built.headers.get('content-type')!, authorization: `Bearer ${token}` };

  const upload: number[] = [];
  const disk: number[] = [];
  const diskDir = mkdtempSync(join(dataDir, 'disk-'));
  for (let i = 0; i < RUNS + 1; i++) {
    let t0 = performance.now();
    const res = await request(port, 'POST', '/api/upload/image', body, headers);
    if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${res.body}`);
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
  child.kill('SIGTERM');
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
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
});

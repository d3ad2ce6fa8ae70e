/**
 * Helpers shared by the H6 benchmarks (generate, http-scenarios, orthanc-compare, list-scaling):
 * a MedShare server in a child process on its own PostgreSQL database, a keep-alive node:http
 * client (fetch costs 3–4× the CPU, which distorts results on 2 cores), sign-in with the mailed
 * second factor, and /proc readings of a child's CPU time and peak RSS.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SERVER_NODE_FLAGS } from '../server/src/node-flags.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const PG_BASE = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const ADMIN = { email: 'bench@medshare.local', password: 'Bench-admin-password-1' };

export const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

// Killing a bench (SIGTERM, Ctrl-C) runs the 'exit' handlers that stop its servers.
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => process.exit(128 + 15));

export interface Answer {
  status: number;
  body: Buffer;
  headers: http.IncomingHttpHeaders;
}

/** One request over the shared keep-alive agent; the body is collected whole. */
export function request(
  port: number,
  method: string,
  path: string,
  body: Buffer | string | null = null,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { ...headers, ...(payload ? { 'content-length': String(payload.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload ?? undefined);
  });
}

export const jsonOf = <T = { data: unknown }>(a: Answer) => JSON.parse(a.body.toString()) as T;

/** Runs `count` jobs with `concurrency` workers pulling from one counter. */
export async function runPool(count: number, concurrency: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await job(i);
    }),
  );
}

export async function withPg<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Drops and creates a database of ours on the shared server; returns its URL. */
export async function freshDatabase(name: string): Promise<string> {
  if (!/^h6_[a-z0-9_]+$/.test(name)) throw new Error(`bench database names start with h6_: ${name}`);
  await withPg(PG_BASE, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  });
  const url = new URL(PG_BASE);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(name: string): Promise<void> {
  await withPg(PG_BASE, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** utime + stime of a process in ms (from /proc/<pid>/stat); throws once the process has exited. */
export function cpuMs(pid: number): number {
  const proc = procStat(`/proc/${pid}/stat`);
  if (!proc) throw new Error(`process ${pid} has exited`);
  return proc.cpuMs;
}

/**
 * A process's or thread's name and CPU time (user + system, ms) from a /proc …/stat file; null when
 * it is gone. The name sits in parentheses and may hold spaces, so fields are counted after the last ')'.
 */
function procStat(path: string): { name: string; cpuMs: number } | null {
  let stat: string;
  try {
    stat = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    cpuMs: (Number(fields[11]) + Number(fields[12])) * 10, // clock ticks of 10 ms (USER_HZ 100)
  };
}

/**
 * CPU time of a process by thread kind, in ms: Node's main thread, V8's helper threads (concurrent
 * and parallel GC), libuv's thread pool (file system calls), worker threads, and the rest.
 */
export function threadCpuMs(pid: number): Record<string, number> {
  const kinds: Record<string, string> = {
    MainThread: 'main',
    V8Worker: 'v8 helpers (gc)',
    'libuv-worker': 'thread pool',
    WorkerThread: 'workers',
  };
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const thread = procStat(`/proc/${pid}/task/${tid}/stat`);
    if (!thread) continue; // the thread ended meanwhile
    const kind = kinds[thread.name] ?? 'other';
    out[kind] = (out[kind] ?? 0) + thread.cpuMs;
  }
  return out;
}

/** CPU time of every PostgreSQL server process on this machine, in ms (backends that exit meanwhile drop out). */
export function postgresCpuMs(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const proc = procStat(`/proc/${pid}/stat`);
    if (proc?.name === 'postgres') total += proc.cpuMs;
  }
  return total;
}

/** Peak resident set (VmHWM) of a process, in MiB. */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
export const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

export function machine(): string {
  const [l1, l5] = loadavg();
  return `${cpus().length}× ${cpus()[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GiB (${Math.round(freemem() / 2 ** 30)} free), Node ${process.version}, load ${l1!.toFixed(1)}/${l5!.toFixed(1)} (shared machine)`;
}

export interface MedShare {
  port: number;
  child: ChildProcess;
  dataDir: string;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** The real server (`server/src/main.ts`) in a child process on its own PostgreSQL database and data dir. */
export async function startMedShare(opts: {
  port: number;
  database: string;
  env?: Record<string, string>;
  quiet?: boolean;
}): Promise<MedShare> {
  const databaseUrl = await freshDatabase(opts.database);
  const dataDir = mkdtempSync(join(tmpdir(), 'h6-medshare-'));
  // BENCH_SERVER_NODE_ARGS: V8 flags NODE_OPTIONS refuses (e.g. '--trace-gc'); the server's stdout is then shown.
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, join(ROOT, 'server/src/main.ts')], {
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      PORT: String(opts.port),
      HOST: '127.0.0.1',
      MAIL_TRANSPORT: 'outbox',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
      WEB_DIST: join(dataDir, 'no-web'),
      // e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the server under load.
      ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {}),
      ...opts.env,
    },
    stdio: ['ignore', opts.quiet === false || nodeArgs.length ? 'inherit' : 'ignore', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  // A bench that dies must not leave its server behind on the shared machine.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  child.once('exit', () => process.off('exit', orphan));
  for (;;) {
    if (exited) throw new Error('MedShare exited during start-up');
    const ok = await request(opts.port, 'GET', '/api/health')
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port: opts.port,
    child,
    dataDir,
    databaseUrl,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dataDir, { recursive: true, force: true });
      await dropDatabase(opts.database).catch(() => undefined);
    },
  };
}

/** The newest six-digit code in the outbox (mail transport 'outbox'), optionally for one address. */
export function latestCode(dataDir: string, to?: string): string {
  const dir = join(dataDir, 'outbox');
  const files = readdirSync(dir)
    .map((n) => ({ n, t: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const f of files) {
    const text = readFileSync(join(dir, f.n), 'utf8');
    if (to && !text.includes(to)) continue;
    const m = /^(\d{6})\r?$/m.exec(text);
    if (m) return m[1]!;
  }
  throw new Error(`no code in the outbox${to ? ` for ${to}` : ''}`);
}

const json = { 'content-type': 'application/json' };

/** Password, then the mailed code: a bearer token. */
export async function signIn(ms: MedShare, email: string, password: string): Promise<string> {
  const first = await request(ms.port, 'POST', '/api/auth/login', JSON.stringify({ email, password }), json);
  if (first.status !== 200) throw new Error(`login ${email}: ${first.status} ${first.body.toString()}`);
  const code = latestCode(ms.dataDir, email);
  const confirm = await request(ms.port, 'POST', '/api/auth/confirm', JSON.stringify({ email, code }), json);
  if (confirm.status !== 200) throw new Error(`confirm ${email}: ${confirm.status} ${confirm.body.toString()}`);
  return jsonOf<{ data: { token: string } }>(confirm).data.token;
}

/** A browser-shaped multipart body (FormData), as bytes and its content type. */
export async function multipart(fields: Array<[string, string | { name: string; type: string; data: Buffer }]>) {
  const form = new FormData();
  for (const [k, v] of fields) {
    if (typeof v === 'string') form.append(k, v);
    else form.append(k, new Blob([new Uint8Array(v.data)], { type: v.type }), v.name);
  }
  const built = new Request('http://x/', { method: 'POST', body: form });
  return { body: Buffer.from(await built.arrayBuffer()), contentType: built.headers.get('content-type')! };
}

export const fmt = (n: number, digits = 1) => n.toLocaleString('en', { maximumFractionDigits: digits });

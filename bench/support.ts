/**
 * Helpers shared by the H6 benchmarks (generate, http-scenarios, orthanc-compare, study-compare,
 * list-scaling): a MedShare server in a child process on its own PostgreSQL database, Debian's
 * Orthanc on its own port and temp dir, a keep-alive node:http client (fetch costs 3–4× the CPU,
 * which distorts results on 2 cores), sign-in with the mailed second factor, /proc readings of a
 * child's CPU time and peak RSS, and copies of the DICOM fixtures with fresh UIDs (single instances
 * or a whole multi-series CT study).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import pg from 'pg';
import { TransferSyntax, parseDicom } from '../server/src/modules/dicom/dicom-core.ts';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../server/src/node-flags.ts';

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
      ...SERVER_ENV,
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
      // Every bench client comes from 127.0.0.1: the per-address socket cap would measure itself.
      HTTP_MAX_CONNECTIONS_PER_IP: '0',
      WEB_DIST: join(dataDir, 'no-web'),
      // e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the server under load.
      ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {}),
      // Allocator and pool experiments for the server alone (docs/decisions.md › Memory of a server under
      // load and at rest): BENCH_SERVER_LD_PRELOAD=… reaches it as LD_PRELOAD, not the bench or Orthanc.
      ...Object.fromEntries(
        [
          'GLIBC_TUNABLES',
          'LD_PRELOAD',
          'MALLOC_CONF',
          'DICOM_WORKERS',
          'VIPS_CONCURRENCY',
          'UV_THREADPOOL_SIZE',
        ].flatMap((k) => {
          const value = process.env[`BENCH_SERVER_${k}`];
          return value ? [[k, value]] : [];
        }),
      ),
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
    .filter((n) => n.endsWith('.eml'))
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

// ---------------------------------------------------------------- accounts

/**
 * A provider (registered, approved by the admin, signed in) and a patient (registered and confirmed)
 * on a fresh server: what a STOW-RS caller or a study import needs (a provider's token, a patient to
 * name). `tag` keeps addresses apart when one server is given several.
 */
export async function providerAndPatient(ms: MedShare, tag = 'bench') {
  const register = async (role: 'healthProvider' | 'patient', email: string, password: string) => {
    const res = await request(
      ms.port,
      'POST',
      '/api/auth/register',
      JSON.stringify({
        role,
        email,
        username: email.split('@')[0]!.replace(/[^a-z0-9]/g, '_'),
        password,
        firstname: role === 'patient' ? 'Amina' : 'Sana',
        lastname: role === 'patient' ? 'Khan' : 'Radiologist',
      }),
      json,
    );
    if (res.status !== 201) throw new Error(`register ${email}: ${res.status} ${res.body.toString()}`);
    return jsonOf<{ data: { user: { id: string } } }>(res).data.user.id;
  };
  const provider = { email: `dr-${tag}@bench.example`, password: 'Bench-provider-password-1' };
  const patient = { email: `pat-${tag}@bench.example`, password: 'Bench-patient-password-1' };
  const providerId = await register('healthProvider', provider.email, provider.password);
  const patientId = await register('patient', patient.email, patient.password);
  const confirm = await request(
    ms.port,
    'POST',
    '/api/auth/confirm',
    JSON.stringify({ email: patient.email, code: latestCode(ms.dataDir, patient.email) }),
    json,
  );
  if (confirm.status !== 200) throw new Error(`confirm ${patient.email}: ${confirm.status}`);
  const admin = await signIn(ms, ADMIN.email, ADMIN.password);
  const approve = await request(ms.port, 'PUT', `/api/users/toggleUserStatus/${providerId}`, null, {
    authorization: `Bearer ${admin}`,
  });
  if (approve.status !== 200) throw new Error(`approve provider: ${approve.status} ${approve.body.toString()}`);
  const token = await signIn(ms, provider.email, provider.password);
  return { provider: { ...provider, id: providerId, token }, patient: { ...patient, id: patientId } };
}

// ---------------------------------------------------------------- measuring a phase

export interface Phase {
  files: number;
  bytes: number;
  seconds: number;
  cpuMs: number;
  /** CPU by thread kind over the phase (threads that ended during it are not counted). */
  threads: Record<string, number>;
}

export const SKIPPED: Phase = { files: 0, bytes: 0, seconds: NaN, cpuMs: NaN, threads: {} };

/**
 * Wall time, the server's CPU (whole process and by thread kind) and, beside it as
 * '(postgresql)', the CPU of every PostgreSQL process on the machine over `run`.
 */
export async function phase(pid: number, files: number, bytes: () => number, run: () => Promise<void>): Promise<Phase> {
  const c0 = cpuMs(pid);
  const th0 = threadCpuMs(pid);
  const pg0 = postgresCpuMs();
  const t0 = performance.now();
  await run();
  const seconds = (performance.now() - t0) / 1000;
  const threads = threadCpuMs(pid);
  for (const k of Object.keys(threads)) threads[k]! -= th0[k] ?? 0;
  // Not the server's own: the database both servers index into, shown beside it.
  threads['(postgresql)'] = postgresCpuMs() - pg0;
  return { files, bytes: bytes(), seconds, cpuMs: cpuMs(pid) - c0, threads };
}

// ---------------------------------------------------------------- Orthanc

export const ORTHANC_PLUGINS = '/usr/share/orthanc/plugins';

export interface BenchOrthanc {
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Debian's Orthanc on loopback with its own config in a temp dir (never the system service):
 * HTTP on `port`, DICOM off, no authentication, no compression; its index in PostgreSQL
 * (orthanc-postgresql, a fresh database `database`) or, with `database: null`, in SQLite.
 * `plugins` and `config` add to that (e.g. the DICOMweb plugin and its section).
 */
export async function startOrthanc(opts: {
  port: number;
  database: string | null;
  plugins?: string[];
  config?: Record<string, unknown>;
}): Promise<BenchOrthanc> {
  const dir = mkdtempSync(join(tmpdir(), 'h6-orthanc-'));
  if (opts.database) await freshDatabase(opts.database);
  mkdirSync(join(dir, 'storage'));
  const config = {
    Name: 'h6-bench',
    StorageDirectory: join(dir, 'storage'),
    IndexDirectory: join(dir, 'index'),
    HttpPort: opts.port,
    DicomServerEnabled: false,
    DicomPort: opts.port + 1,
    RemoteAccessAllowed: false,
    AuthenticationEnabled: false,
    HttpCompressionEnabled: false,
    StorageCompression: false,
    SaveJobs: false,
    Plugins: [
      ...(opts.database ? [join(ORTHANC_PLUGINS, 'libOrthancPostgreSQLIndex.so')] : []),
      ...(opts.plugins ?? []),
    ],
    PostgreSQL: {
      EnableIndex: !!opts.database,
      EnableStorage: false,
      Host: '127.0.0.1',
      Port: 5432,
      Database: opts.database ?? '',
      Username: 'postgres',
      Password: '',
      Lock: false,
    },
    ...opts.config,
  };
  writeFileSync(join(dir, 'orthanc.json'), JSON.stringify(config, null, 2));
  const child = spawn('/usr/sbin/Orthanc', [join(dir, 'orthanc.json')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-4000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  child.once('exit', () => process.off('exit', orphan));
  for (;;) {
    if (exited) throw new Error(`Orthanc exited during start-up:\n${log}`);
    const ok = await request(opts.port, 'GET', '/system')
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
      if (opts.database) await dropDatabase(opts.database).catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------- DICOM copies with fresh UIDs

export const DICOM_FIXTURES = join(ROOT, 'server/test/fixtures/dicom');

/** The image fixtures the DICOM benches use: the server tests' list (non-images and malformed files left out). */
export { imageFixtureNames } from '../server/src/modules/images/images.test-helpers.ts';

/** A UID of exactly `length` characters under the 2.25 (UUID-derived) root. */
export function uidOfLength(length: number): string {
  let s = `2.25.${randomInt(1, 10)}`;
  while (s.length < length) s += String(randomInt(0, 10));
  return s.slice(0, length);
}

function replaceAll(buf: Buffer, from: Buffer, to: Buffer): number {
  let n = 0;
  for (let at = buf.indexOf(from); at !== -1; at = buf.indexOf(from, at + to.length)) {
    to.copy(buf, at);
    n++;
  }
  return n;
}

export interface DicomTemplate {
  name: string;
  /** Bytes to patch: the file itself, or meta + inflated data set for deflated files. */
  plain: Buffer;
  deflatedFrom: number | null;
  uids: string[];
}

/** A fixture file (its name in server/test/fixtures/dicom) ready to be copied with fresh UIDs. */
export function dicomTemplate(name: string): DicomTemplate {
  const data = readFileSync(join(DICOM_FIXTURES, name));
  const parsed = parseDicom(data);
  const ds = parsed.dataSet;
  const uids = ['x0020000d', 'x0020000e', 'x00080018']
    .map((t) => ds.string(t)?.replace(/\0/g, '').trim())
    .filter((u): u is string => !!u)
    .filter((u, i, all) => all.indexOf(u) === i)
    // Longest first, so that a UID that prefixes another is not rewritten inside it first.
    .sort((a, b) => b.length - a.length);
  if (uids.length === 0) throw new Error(`${name}: missing UIDs`);
  if (parsed.transferSyntax === TransferSyntax.deflatedLE) {
    const metaLength = ds.uint32('x00020000')!;
    return { name, plain: Buffer.from(parsed.byteArray), deflatedFrom: 132 + 12 + metaLength, uids };
  }
  return { name, plain: data, deflatedFrom: null, uids };
}

/**
 * A copy of the template with fresh Study, Series and SOP Instance UIDs wherever they occur
 * (byte-patched in place, same length, so no lengths change; deflated data sets are re-deflated).
 */
export function freshCopy(t: DicomTemplate): Buffer {
  const out = Buffer.from(t.plain);
  for (const uid of t.uids) {
    const n = replaceAll(out, Buffer.from(uid, 'latin1'), Buffer.from(uidOfLength(uid.length), 'latin1'));
    if (n === 0) throw new Error(`${t.name}: UID ${uid} not found in the bytes`);
  }
  if (t.deflatedFrom === null) return out;
  return Buffer.concat([out.subarray(0, t.deflatedFrom), deflateRawSync(out.subarray(t.deflatedFrom))]);
}

/**
 * Sets string elements of the top-level data set of a little-endian, non-deflated Part 10 file to
 * new values of any length (`tag` as dicom-parser names it, e.g. 'x0020000d'): each element's value
 * and length field are rewritten, the bytes after it move. Top level only: no enclosing sequence or
 * item length changes; the File Meta group is not touched. Every tag must be present.
 */
export function setTopLevel(file: Buffer, values: Record<string, string>): Buffer {
  const parsed = parseDicom(file);
  if (parsed.byteArray.length !== file.length || parsed.transferSyntax === TransferSyntax.explicitBE)
    throw new Error('setTopLevel: little-endian, non-deflated Part 10 files only');
  const edits = Object.entries(values).map(([tag, value]) => {
    const el = parsed.dataSet.elements[tag];
    if (!el) throw new Error(`setTopLevel: ${tag} is not in the data set`);
    if (tag.startsWith('x0002')) throw new Error('setTopLevel: not for the File Meta group');
    // UI is padded with NUL, the other string VRs with a space (PS3.5 §6.2).
    const pad = tag === 'x0020000d' || tag === 'x0020000e' || tag === 'x00080018' ? '\0' : ' ';
    const bytes = Buffer.from(value.length % 2 ? value + pad : value, 'latin1');
    // Explicit VR (UI, IS, LO …: 2-byte length) and implicit VR (4-byte length): 8 header bytes either way.
    const header = Buffer.from(file.subarray(el.dataOffset - 8, el.dataOffset));
    if (el.vr) header.writeUInt16LE(bytes.length, 6);
    else header.writeUInt32LE(bytes.length, 4);
    return { start: el.dataOffset - 8, end: el.dataOffset + el.length, replacement: Buffer.concat([header, bytes]) };
  });
  edits.sort((a, b) => a.start - b.start);
  const pieces: Buffer[] = [];
  let at = 0;
  for (const e of edits) {
    pieces.push(file.subarray(at, e.start), e.replacement);
    at = e.end;
  }
  pieces.push(file.subarray(at));
  return Buffer.concat(pieces);
}

/** The CT fixtures a bench study is made of, one per series in turn. */
export const CT_FIXTURES = [
  'ct_explicit_le_16bit_signed_small.dcm',
  'ct_implicit_le_16bit_signed.dcm',
  'ct_jpeg_ls_lossless_16bit_signed.dcm',
  'ct_multiframe_jpeg_lossless_sv1.dcm',
];

export interface BenchStudy {
  studyUid: string;
  series: Array<{ uid: string; number: number; fixture: string; instances: number }>;
  /** In series order, then Instance Number: how a modality sends a study. */
  instances: Array<{ name: string; series: number; number: number; sop: string; data: Buffer }>;
  bytes: number;
}

/**
 * One patient and one study for every instance (the fixtures come from different patients; Orthanc
 * keys a study by Patient ID and Study Instance UID, so a study across patients would be several).
 */
const STUDY_LEVEL = {
  x00100010: 'Bench^Study',
  x00100020: 'BENCH-STUDY-1',
  x00100030: '19600101',
  x00100040: 'O',
  x00080020: '20260101',
  x00080030: '120000',
  x00081030: 'CT CHEST ABDOMEN PELVIS',
  x00080050: 'BENCH1',
  x00200010: 'BENCH1',
};

/**
 * A CT study of `instances` instances in `series` series (sizes as even as they divide), series
 * s made of CT_FIXTURES[s mod 4] copied with fresh UIDs, then given the study's patient and
 * study attributes (STUDY_LEVEL) and Study Instance UID, its series' Series Instance UID and
 * Series Number, and Instance Numbers 1…n.
 */
export function ctStudy(instances: number, series: number): BenchStudy {
  const templates = CT_FIXTURES.map(dicomTemplate);
  const studyUid = uidOfLength(58);
  const out: BenchStudy = { studyUid, series: [], instances: [], bytes: 0 };
  for (let s = 0; s < series; s++) {
    const count = Math.floor(instances / series) + (s < instances % series ? 1 : 0);
    const template = templates[s % templates.length]!;
    const uid = uidOfLength(58);
    out.series.push({ uid, number: s + 1, fixture: template.name, instances: count });
    for (let n = 1; n <= count; n++) {
      const data = setTopLevel(freshCopy(template), {
        ...STUDY_LEVEL,
        x0020000d: studyUid,
        x0020000e: uid,
        x00200011: String(s + 1),
        x00200013: String(n),
      });
      const sop = parseDicom(data).dataSet.string('x00080018')!.replace(/\0/g, '').trim();
      out.instances.push({
        name: `S${s + 1}/IM${String(n).padStart(4, '0')}.dcm`,
        series: s + 1,
        number: n,
        sop,
        data,
      });
      out.bytes += data.length;
    }
  }
  return out;
}

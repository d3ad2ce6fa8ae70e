/**
 * Mixed workload against the real server: sign-in with the mailed second factor, image lists,
 * thumbnails, content downloads, uploads and message sends, from many concurrent clients.
 *
 *   npx node bench/load-mixed.ts [--clients 100] [--duration 60] [--think 0] [--db postgres|pglite] [--only list,send]
 *
 * The server runs in a child process (`node server/src/main.ts`) on its own PostgreSQL database
 * (created from BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres, dropped after),
 * with REDIS_URL (BENCH_REDIS_URL, default redis://127.0.0.1:6379) and the outbox mailer, whose
 * files give the sign-in codes. RATE_LIMIT_AUTH_PER_MINUTE is raised to 100000: every client
 * signs in from 127.0.0.1, which the per-address auth limit (20/min) would otherwise refuse — the
 * limit itself is tested in the suite, not here. The per-session send limit (120/min) stays: a
 * client paces its own sends below it, as the web app's users do.
 *
 * Each client is one health provider's session with a few uploaded images, in a closed loop
 * (next request when the previous one answered, plus `--think` ms). Prints per operation: req/s,
 * p50/p99, answers by status; errors are any status other than the operation's success status.
 * The server's RSS and CPU come from /proc every second. Not part of npm test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { multipartBody } from '../server/src/modules/images/images.test-helpers.ts';
import { type OutboxReader, type SpawnedServer, outboxReader, startServer } from '../server/test/spawned-server.ts';
import { cpuMs } from './support.ts';

const ADMIN = { email: 'load-admin@bench.medshare', password: 'Load-bench-admin-password-1' };
const PASSWORD = 'Tr0ubadour-and-horse';
const JPEG = readFileSync(
  fileURLToPath(new URL('../server/test/fixtures/other/photo_hopper_portrait.jpg', import.meta.url)),
);
const SENDS_PER_MINUTE = 100; // below the server's 120 per session

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

interface Answer {
  status: number;
  body: Buffer;
}

function call(
  port: number,
  method: string,
  path: string,
  opts: { token?: string; json?: object; body?: Buffer; type?: string } = {},
): Promise<Answer> {
  const payload = opts.json ? Buffer.from(JSON.stringify(opts.json)) : (opts.body ?? null);
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (payload) {
    headers['content-type'] = opts.json ? 'application/json' : opts.type!;
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', () => resolve({ status: -1, body: Buffer.alloc(0) }));
    });
    // A dropped connection counts as an error (status -1), never as a crash of the bench.
    req.on('error', () => resolve({ status: -1, body: Buffer.alloc(0) }));
    req.end(payload ?? undefined);
  });
}
const dataOf = <T>(a: Answer) => (JSON.parse(a.body.toString()) as { data: T }).data;

async function signIn(port: number, outbox: OutboxReader, email: string, password: string, stats?: Stats) {
  const before = outbox.count(email);
  let t0 = performance.now();
  const login = await call(port, 'POST', '/api/auth/login', { json: { email, password } });
  stats?.record('login (password)', login.status, 200, performance.now() - t0);
  if (login.status !== 200) return null;
  const code = await outbox.codeFor(email, before).catch(() => null);
  if (!code) {
    stats?.record('confirm (code)', -2, 200, 0);
    return null;
  }
  t0 = performance.now();
  const confirm = await call(port, 'POST', '/api/auth/confirm', { json: { email, code } });
  stats?.record('confirm (code)', confirm.status, 200, performance.now() - t0);
  if (confirm.status !== 200) return null;
  return dataOf<{ token: string; user: { id: string } }>(confirm);
}

async function pool<T>(items: T[], concurrency: number, job: (item: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < items.length; i = next++) await job(items[i]!, i);
    }),
  );
}

export class Stats {
  readonly ops = new Map<string, { latencies: number[]; statuses: Map<number, number>; errors: number }>();
  record(op: string, status: number, expected: number, ms: number) {
    let s = this.ops.get(op);
    if (!s) this.ops.set(op, (s = { latencies: [], statuses: new Map(), errors: 0 }));
    s.latencies.push(ms);
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
    if (status !== expected) s.errors++;
  }
  get errors() {
    return [...this.ops.values()].reduce((n, s) => n + s.errors, 0);
  }
  get requests() {
    return [...this.ops.values()].reduce((n, s) => n + s.latencies.length, 0);
  }
}

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN;

/** RSS and CPU of a process from /proc, sampled every `everyMs`. */
export function sampleProcess(pid: number, everyMs: number) {
  const samples: Array<{ at: number; rssMb: number; cpuSeconds: number }> = [];
  const read = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      samples.push({ at: Date.now(), rssMb: rssKb / 1024, cpuSeconds: cpuMs(pid) / 1000 });
    } catch {
      // The process has exited.
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      read();
    },
  };
}

export interface LoadOptions {
  clients: number;
  durationS: number;
  thinkMs: number;
  db: 'postgres' | 'pglite';
  /** Only these operations (same relative weights), e.g. ['list'] to take the audit chain out. */
  only?: string[];
  /** Called every `everyMs` while the load runs (the soak prints RSS with it). */
  onTick?: (elapsedS: number, stats: Stats) => void;
}

export interface LoadResult {
  stats: Stats;
  elapsedS: number;
  samples: Array<{ at: number; rssMb: number; cpuSeconds: number }>;
  startedAt: number;
  setupS: number;
  database: string;
  /** PostgreSQL only: backends of the app's database seen per state or wait event, summed over 1 s samples. */
  pgWaits: Map<string, number>;
}

/** Starts a server, creates the accounts, runs the mixed load and stops everything. */
export async function runMixedLoad(o: LoadOptions): Promise<LoadResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'medshare-load-'));
  const pgBase = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `medshare_load_${process.pid}_${Date.now().toString(36)}`;
  let databaseUrl: string | null = null;
  if (o.db === 'postgres') {
    const c = new pg.Client({ connectionString: pgBase });
    await c.connect();
    await c.query(`CREATE DATABASE ${dbName}`);
    await c.end();
    const u = new URL(pgBase);
    u.pathname = `/${dbName}`;
    databaseUrl = u.toString();
  }
  let server: SpawnedServer | null = null;
  try {
    const setupStart = Date.now();
    server = await startServer({
      dataDir,
      admin: ADMIN,
      databaseUrl,
      env: {
        RATE_LIMIT_AUTH_PER_MINUTE: '100000',
        REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
        LOG_LEVEL: 'error',
      },
    });
    const port = Number(new URL(server.base).port);
    const outbox = outboxReader(dataDir);
    const admin = (await signIn(port, outbox, ADMIN.email, ADMIN.password))!;
    const run = Date.now().toString(36);

    // Patients to write to, and one provider account per client (a sign-in of one account from two
    // clients at once would, by design, void the first code).
    const patients: string[] = [];
    await pool(
      Array.from({ length: Math.max(5, Math.ceil(o.clients / 5)) }, (_, i) => i),
      4,
      async (i) => {
        const email = `lp${run}${i}@example.org`;
        const before = outbox.count(email);
        const reg = await call(port, 'POST', '/api/auth/register', {
          json: {
            role: 'patient',
            email,
            username: `lp${run}${i}`,
            password: PASSWORD,
            firstname: 'P',
            lastname: `L${i}`,
          },
        });
        if (reg.status !== 201) throw new Error(`register patient: ${reg.status} ${reg.body}`);
        const code = await outbox.codeFor(email, before);
        const ok = await call(port, 'POST', '/api/auth/confirm', { json: { email, code } });
        if (ok.status !== 200) throw new Error(`confirm patient: ${ok.status}`);
        patients.push(dataOf<{ user: { id: string } }>(ok).user.id);
      },
    );
    const form = await multipartBody([
      ['caption', 'Load test image'],
      ['file', { name: 'portrait.jpg', type: 'image/jpeg', data: JPEG }],
    ]);
    const upload = { body: form.payload, type: form.headers['content-type'] };
    const clients: Array<{ email: string; token: string; images: string[]; thumbs: string[]; sends: number[] }> = [];
    await pool(
      Array.from({ length: o.clients }, (_, i) => i),
      4,
      async (i) => {
        const email = `ld${run}${i}@example.org`;
        const before = outbox.count(email);
        const reg = await call(port, 'POST', '/api/auth/register', {
          json: {
            role: 'healthProvider',
            email,
            username: `ld${run}${i}`,
            password: PASSWORD,
            firstname: 'D',
            lastname: `L${i}`,
            licensenumber: `LIC${i}`,
            specialization: 'Radiology',
          },
        });
        if (reg.status !== 201) throw new Error(`register provider: ${reg.status} ${reg.body}`);
        const id = dataOf<{ user: { id: string } }>(reg).user.id;
        const code = await outbox.codeFor(email, before);
        await call(port, 'POST', '/api/auth/confirm', { json: { email, code } });
        const approve = await call(port, 'PUT', `/api/users/toggleUserStatus/${id}`, { token: admin.token });
        if (approve.status !== 200) throw new Error(`approve: ${approve.status} ${approve.body}`);
        const session = await signIn(port, outbox, email, PASSWORD);
        if (!session) throw new Error('provider sign-in failed');
        const images: string[] = [];
        for (let k = 0; k < 3; k++) {
          const up = await call(port, 'POST', '/api/upload/image', { token: session.token, ...upload });
          if (up.status !== 201) throw new Error(`upload: ${up.status} ${up.body}`);
          images.push(dataOf<{ id: string }>(up).id);
        }
        clients.push({ email, token: session.token, images, thumbs: [], sends: [] });
      },
    );
    const setupS = (Date.now() - setupStart) / 1000;

    // Weights per operation (sum 100), roughly a clinic day: mostly browsing and messaging.
    const mix: Array<[string, number]> = (
      [
        ['login', 3],
        ['list', 22],
        ['thumbnail', 25],
        ['content', 15],
        ['upload', 5],
        ['send', 30],
      ] as Array<[string, number]>
    ).filter(([op]) => !o.only || o.only.includes(op));
    const total = mix.reduce((n, [, w]) => n + w, 0);
    const pick = () => {
      let r = Math.random() * total;
      for (const [op, w] of mix) if ((r -= w) < 0) return op;
      return 'list';
    };
    const stats = new Stats();
    const sampler = sampleProcess(server.child.pid!, 1_000);
    // Where the app's PostgreSQL sessions spend the run (e.g. Lock/transactionid: waiting for a row lock).
    const pgWaits = new Map<string, number>();
    const watcher = databaseUrl ? new pg.Client({ connectionString: pgBase }) : null;
    await watcher?.connect();
    const watch = watcher
      ? setInterval(() => {
          watcher
            .query<{ what: string; n: number }>(
              `SELECT coalesce(wait_event_type || '/' || wait_event, state, '?') AS what, count(*)::int AS n
                 FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() GROUP BY 1`,
              [dbName],
            )
            .then((r) => r.rows.forEach(({ what, n }) => pgWaits.set(what, (pgWaits.get(what) ?? 0) + n)))
            .catch(() => undefined);
        }, 1_000)
      : null;
    const startedAt = Date.now();
    const endAt = startedAt + o.durationS * 1_000;
    const ticker = o.onTick ? setInterval(() => o.onTick!((Date.now() - startedAt) / 1000, stats), 10_000) : null;
    const timed = async (op: string, expected: number, fn: () => Promise<Answer>) => {
      const t0 = performance.now();
      const a = await fn();
      stats.record(op, a.status, expected, performance.now() - t0);
      return a;
    };

    await Promise.all(
      clients.map(async (c, ci) => {
        while (Date.now() < endAt) {
          let op = pick();
          const now = Date.now();
          c.sends = c.sends.filter((t) => now - t < 60_000);
          if (op === 'send' && c.sends.length >= SENDS_PER_MINUTE) op = 'list';
          if (op === 'thumbnail' && !c.thumbs.length) op = 'list';
          const image = c.images[Math.floor(Math.random() * c.images.length)]!;
          if (op === 'login') {
            const s = await signIn(port, outbox, c.email, PASSWORD, stats);
            if (s) c.token = s.token;
          } else if (op === 'list') {
            const a = await timed('image list', 200, () =>
              call(port, 'GET', '/api/upload/my-images?limit=20', { token: c.token }),
            );
            // Like the web app: ask for a thumbnail only once the list says it is ready.
            if (a.status === 200)
              c.thumbs = dataOf<Array<{ id: string; thumbnailStatus: string }>>(a)
                .filter((i) => i.thumbnailStatus === 'ready')
                .map((i) => i.id);
          } else if (op === 'thumbnail') {
            const thumb = c.thumbs[Math.floor(Math.random() * c.thumbs.length)];
            if (thumb)
              await timed('thumbnail', 200, () =>
                call(port, 'GET', `/api/images/${thumb}/thumbnail`, { token: c.token }),
              );
          } else if (op === 'content') {
            await timed('content', 200, () => call(port, 'GET', `/api/images/${image}/content`, { token: c.token }));
          } else if (op === 'upload') {
            const a = await timed('upload', 201, () =>
              call(port, 'POST', '/api/upload/image', { token: c.token, ...upload }),
            );
            if (a.status === 201 && c.images.length < 20) c.images.push(dataOf<{ id: string }>(a).id);
          } else {
            c.sends.push(now);
            const to = patients[(ci + c.sends.length) % patients.length]!;
            await timed('message send', 201, () =>
              call(port, 'POST', '/api/message/send', {
                token: c.token,
                json: { recipientId: to, content: `Load message ${c.sends.length} from client ${ci}` },
              }),
            );
          }
          if (o.thinkMs) await new Promise((r) => setTimeout(r, o.thinkMs * (0.5 + Math.random())));
        }
      }),
    );
    const elapsedS = (Date.now() - startedAt) / 1000;
    if (ticker) clearInterval(ticker);
    if (watch) clearInterval(watch);
    await watcher?.end();
    sampler.stop();
    return { stats, elapsedS, samples: sampler.samples, startedAt, setupS, database: o.db, pgWaits };
  } finally {
    if (server) {
      const out = server.output();
      await server.stop('SIGTERM');
      if (/error|fatal/i.test(out)) console.log(`server output (errors):\n${out.slice(-4000)}`);
    }
    agent.destroy();
    if (databaseUrl) {
      const c = new pg.Client({ connectionString: pgBase });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await c.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function machine() {
  return `${cpus().length} vCPU ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
}

export function report(r: LoadResult) {
  const rows = [...r.stats.ops.entries()].sort(([a], [b]) => a.localeCompare(b));
  console.log(
    `\n${r.stats.requests} requests in ${r.elapsedS.toFixed(1)} s (${(r.stats.requests / r.elapsedS).toFixed(1)} req/s), setup ${r.setupS.toFixed(0)} s, database ${r.database}`,
  );
  console.log('| operation | req/s | p50 ms | p99 ms | max ms | answers | errors |');
  console.log('|---|---:|---:|---:|---:|---|---:|');
  for (const [op, s] of rows) {
    const sorted = [...s.latencies].sort((a, b) => a - b);
    const answers = [...s.statuses.entries()]
      .map(([k, v]) => `${k === -1 ? 'dropped' : k === -2 ? 'no code' : k}: ${v}`)
      .join(', ');
    console.log(
      `| ${op} | ${(sorted.length / r.elapsedS).toFixed(1)} | ${pct(sorted, 50).toFixed(1)} | ${pct(sorted, 99).toFixed(1)} | ${sorted.at(-1)!.toFixed(1)} | ${answers} | ${s.errors} |`,
    );
  }
  const rss = r.samples.map((s) => s.rssMb);
  const cpu = r.samples.length > 1 ? r.samples.at(-1)!.cpuSeconds - r.samples[0]!.cpuSeconds : NaN;
  let peakCpu = 0;
  for (let i = 1; i < r.samples.length; i++) {
    const a = r.samples[i - 1]!;
    const b = r.samples[i]!;
    peakCpu = Math.max(peakCpu, (b.cpuSeconds - a.cpuSeconds) / ((b.at - a.at) / 1000));
  }
  console.log(
    `server: peak RSS ${Math.max(...rss).toFixed(0)} MB (start ${rss[0]!.toFixed(0)} MB, end ${rss.at(-1)!.toFixed(0)} MB); CPU ${cpu.toFixed(1)} s over ${r.elapsedS.toFixed(0)} s = ${((cpu / r.elapsedS) * 100).toFixed(0)} % of one core on average, peak ${(peakCpu * 100).toFixed(0)} % (1 s samples)`,
  );
  if (r.pgWaits.size) {
    const total = [...r.pgWaits.values()].reduce((a, b) => a + b, 0);
    const parts = [...r.pgWaits.entries()].sort((a, b) => b[1] - a[1]);
    console.log(
      `PostgreSQL sessions of the app, share of 1 s samples: ${parts.map(([k, v]) => `${k} ${((v / total) * 100).toFixed(0)} %`).join(', ')}`,
    );
  }
  console.log(`unexpected errors: ${r.stats.errors}`);
}

async function main() {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '100' },
      duration: { type: 'string', default: '60' },
      think: { type: 'string', default: '0' },
      db: { type: 'string', default: 'postgres' },
      only: { type: 'string' },
    },
  });
  const db = values.db === 'pglite' ? 'pglite' : 'postgres';
  const only = values.only?.split(',');
  console.log(`machine: ${machine()}`);
  console.log(
    `mixed load${only ? ` (only ${only.join(', ')})` : ''}: ${values.clients} clients, ${values.duration} s, think ${values.think} ms, ${db} + Redis`,
  );
  const result = await runMixedLoad({
    clients: Number(values.clients),
    durationS: Number(values.duration),
    thinkMs: Number(values.think),
    db,
    ...(only ? { only } : {}),
  });
  report(result);
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  process.exit(result.stats.errors ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(2);
  });
}

/**
 * Sizing figures for docs/operations.md: memory of one instance (idle, after load), the
 * throughput of an authenticated read (GET /api/users/profile: session check + one row) on one
 * instance directly versus N instances behind nginx, and of 8 MB uploads through nginx into S3. Uses scripts/scale-out.ts (PostgreSQL,
 * Redis, s3rver, nginx). Not part of npm test.
 *
 *   node scripts/scale-out-bench.ts [--instances 3] [--seconds 10] [--connections 50]
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { type Cluster, ensureDatabase, startCluster } from './scale-out.ts';

const { values } = parseArgs({
  options: {
    instances: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    'database-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/medshare_scaleout_bench' },
    'redis-url': { type: 'string', default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
  },
});
const ADMIN = { email: 'bench-admin@medshare.local', password: 'Scale-out-bench-password-1' };

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

function latestCode(outbox: string): string {
  const newest = readdirSync(outbox)
    .filter((n) => n.endsWith('.eml'))
    .map((n) => ({ n, t: statSync(join(outbox, n)).mtimeMs }))
    .sort((a, b) => b.t - a.t)[0]!;
  return /^(\d{6})\r?$/m.exec(readFileSync(join(outbox, newest.n), 'utf8'))![1]!;
}

async function signIn(cluster: Cluster): Promise<string> {
  const first = cluster.instances[0]!;
  const post = (path: string, body: object) =>
    fetch(`${first.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const login = await post('/api/auth/login', ADMIN);
  if (login.status !== 200) throw new Error(`login: ${login.status}`);
  await new Promise((r) => setTimeout(r, 300));
  const confirm = await post('/api/auth/confirm', {
    email: ADMIN.email,
    code: latestCode(join(cluster.dir, first.name, 'outbox')),
  });
  if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status}`);
  return ((await confirm.json()) as { data: { token: string } }).data.token;
}

async function load(url: string, token: string) {
  const result = await autocannon({
    url: `${url}/api/users/profile`,
    headers: { authorization: `Bearer ${token}` },
    connections: Number(values.connections),
    duration: Number(values.seconds),
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** 24 PDFs of 8 MB through nginx, 4 at a time: encrypted end to end into the S3 store. */
async function uploadThroughput(url: string, token: string) {
  const size = 8 * 1024 * 1024;
  const count = 24;
  const body = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(size - 9)]);
  let next = 0;
  const statuses: number[] = [];
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const form = new FormData();
      form.append('caption', `bench ${i}`);
      form.append('file', new Blob([new Uint8Array(body)], { type: 'application/pdf' }), `bench-${i}.pdf`);
      const res = await fetch(`${url}/api/upload/image`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${token}` },
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    files: count,
    mbPerSecond: Number(((count * size) / 1e6 / seconds).toFixed(1)),
    seconds: Number(seconds.toFixed(1)),
    ok: statuses.filter((s) => s === 201).length,
  };
}

async function main() {
  const databaseUrl = values['database-url'];
  // A fresh database each run: figures never depend on what an earlier run left behind.
  const admin = new pg.Client({ connectionString: databaseUrl.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${new URL(databaseUrl).pathname.slice(1)} WITH (FORCE)`);
  await admin.end();
  await ensureDatabase(databaseUrl);
  const cluster = await startCluster({
    instances: Number(values.instances),
    databaseUrl,
    redisUrl: values['redis-url'],
    env: {
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    },
  });
  try {
    const token = await signIn(cluster);
    const pids = cluster.instances.map((i) => i.child.pid!);
    await new Promise((r) => setTimeout(r, 2_000));
    const idle = pids.map(rssMiB);
    console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, load ${loadavg()[0]!.toFixed(1)}`);
    console.log(`idle RSS per instance (MiB): ${idle.map((m) => m.toFixed(0)).join(', ')}`);
    // Warm-up, then one instance directly, then every instance through nginx.
    await autocannon({
      url: `${cluster.instances[0]!.url}/api/users/profile`,
      headers: { authorization: `Bearer ${token}` },
      connections: 10,
      duration: 2,
    });
    const one = await load(cluster.instances[0]!.url, token);
    console.log(`one instance, direct: ${JSON.stringify(one)}`);
    const all = await load(cluster.url, token);
    console.log(`${pids.length} instances via nginx: ${JSON.stringify(all)}`);
    const uploads = await uploadThroughput(cluster.url, token);
    console.log(`uploads via nginx (S3 driver): ${JSON.stringify(uploads)}`);
    const after = pids.map(rssMiB);
    console.log(`RSS per instance after load (MiB): ${after.map((m) => m.toFixed(0)).join(', ')}`);
    console.log(`load average at the end: ${loadavg()[0]!.toFixed(1)}`);
  } finally {
    await cluster.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

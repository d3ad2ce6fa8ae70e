import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, findNginx, startCluster } from '../../scripts/scale-out.ts';
import { type SseConnection, openSse } from '../src/modules/messages/sse-test-client.ts';
import { createTestDatabase, testDbKind } from './database.ts';
import { type TestSmtp, codeIn, startSmtp } from './smtp.ts';

/**
 * Three real server processes (scripts/scale-out.ts) on one PostgreSQL database, one Redis and one
 * S3 store (s3rver), behind a real nginx using deploy/medshare-proxy.conf: sessions, rate limits
 * and live messages work across instances, and killing one with SIGKILL during uploads loses no
 * upload that was acknowledged.
 */
const redisUrl = process.env.TEST_REDIS_URL;
const skip =
  testDbKind !== 'postgres'
    ? 'instances need one shared PostgreSQL database (TEST_DATABASE_URL); PGlite cannot be shared'
    : !redisUrl
      ? 'TEST_REDIS_URL is not set'
      : !findNginx()
        ? 'nginx is not installed (apt-get install nginx)'
        : null;

const ADMIN = { email: 'scale-admin@test.medshare', password: 'Scale-out-admin-password-1' };
const AUTH_LIMIT = 5;

let cluster: Cluster;
let smtp: TestSmtp;
let database: Awaited<ReturnType<typeof createTestDatabase>> | null = null;
const streams: SseConnection[] = [];

/** A client address per request unless told: the instances trust X-Forwarded-For (TRUST_PROXY). */
const someIp = () => `10.${randomBytes(3).join('.')}`;

interface Answer {
  status: number;
  body: { data?: unknown; message?: string } & Record<string, unknown>;
}

async function api(
  base: string,
  method: string,
  path: string,
  { token, json, ip = someIp() }: { token?: string; json?: object; ip?: string | null } = {},
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(json ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(ip ? { 'x-forwarded-for': ip } : {}),
    },
    body: json ? JSON.stringify(json) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Answer['body']) : {} };
}

interface SignedIn {
  token: string;
  id: string;
}

/** Confirms the newest mailed code; a provider still awaiting approval gets no session yet. */
async function confirm(base: string, email: string): Promise<Partial<SignedIn>> {
  const code = codeIn(await smtp.lastTo(email));
  const res = await api(base, 'POST', '/api/auth/confirm', { json: { email, code } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const data = res.body.data as { token?: string; user?: { id: string } } | null;
  return { token: data?.token, id: data?.user?.id };
}

async function signIn(base: string, email: string, password: string): Promise<SignedIn> {
  const before = smtp.countTo(email);
  const res = await api(base, 'POST', '/api/auth/login', { json: { email, password } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  while (smtp.countTo(email) === before) await new Promise((r) => setTimeout(r, 10));
  const { token, id } = await confirm(base, email);
  if (!token || !id) throw new Error(`no session for ${email}`);
  return { token, id };
}

async function register(base: string, role: 'patient' | 'healthProvider'): Promise<SignedIn & { email: string }> {
  const username = `${role === 'patient' ? 'pat' : 'doc'}${randomBytes(4).toString('hex')}`;
  const email = `${username}@example.org`;
  const password = 'Tr0ubadour-and-horse';
  const res = await api(base, 'POST', '/api/auth/register', {
    json: { role, email, username, password, firstname: 'Scale', lastname: username },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = (res.body.data as { user: { id: string } }).user.id;
  const confirmed = await confirm(base, email);
  if (role === 'patient') return { token: confirmed.token!, id, email };
  const admin = await signIn(base, ADMIN.email, ADMIN.password);
  const approve = await api(base, 'PUT', `/api/users/toggleUserStatus/${id}`, { token: admin.token });
  expect(approve.status).toBe(200);
  return { ...(await signIn(base, email, password)), email };
}

async function stream(url: string, token: string): Promise<SseConnection> {
  const s = await openSse(url, token);
  streams.push(s);
  expect(s.status).toBe(200);
  await s.next((e) => e.event === 'ready', 5_000);
  return s;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe.skipIf(skip !== null)(`scale-out behind nginx${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let doctor: SignedIn;
  let patient: SignedIn;
  const app = (i: number) => cluster.instances[i]!.url;

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.target.kind !== 'postgres') throw new Error('unreachable: PostgreSQL expected');
    smtp = await startSmtp();
    cluster = await startCluster({
      instances: 3,
      databaseUrl: database.target.url,
      redisUrl: redisUrl!,
      // The upper half of 8400–8499: `node scripts/scale-out.ts` starts at 8400.
      firstPort: 8450,
      env: {
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        MAIL_TRANSPORT: 'smtp',
        SMTP_URL: smtp.url,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        RATE_LIMIT_AUTH_PER_MINUTE: String(AUTH_LIMIT),
      },
    });
    doctor = await register(app(0), 'healthProvider');
    patient = await register(app(0), 'patient');
  }, 90_000);

  afterAll(async () => {
    streams.splice(0).forEach((s) => s.close());
    await cluster?.stop();
    await smtp?.close();
    await database?.drop();
  });

  it('serves a session created on instance 1 through instance 2 and through nginx, and ends it everywhere', async () => {
    const session = await register(app(0), 'patient');
    const direct = await api(app(1), 'GET', '/api/users/profile', { token: session.token });
    expect(direct.status).toBe(200);
    expect((direct.body.data as { id: string }).id).toBe(session.id);
    // least_conn over three instances: several requests through nginx reach more than one of them.
    for (let i = 0; i < 6; i++) {
      const proxied = await api(cluster.url, 'GET', '/api/users/profile', { token: session.token, ip: null });
      expect(proxied.status).toBe(200);
    }
    const out = await api(app(2), 'POST', '/api/auth/logout', { token: session.token });
    expect(out.status).toBe(200);
    for (const base of [app(0), app(1), cluster.url]) {
      expect((await api(base, 'GET', '/api/users/profile', { token: session.token })).status).toBe(401);
    }
  });

  it('keeps /metrics off nginx and off the public port, while each instance serves its own on METRICS_PORT', async () => {
    expect((await fetch(`${cluster.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${app(1)}/metrics`)).status).toBe(404);
    const direct = await fetch(`${cluster.instances[1]!.metricsUrl}/metrics`);
    expect(direct.status).toBe(200);
    expect(await direct.text()).toContain('medshare_http_request_duration_seconds');
  });

  it('shares the sign-in rate limit between instances', async () => {
    const ip = '203.0.113.77';
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_LIMIT + 3; i++) {
      const res = await api(app(i % 3), 'POST', '/api/auth/login', {
        ip,
        json: { email: 'nobody-here@example.org', password: 'not the password at all' },
      });
      statuses.push(res.status);
    }
    // Per-instance counters would allow 3 × AUTH_LIMIT; one shared counter stops the sixth try.
    expect(statuses.slice(0, AUTH_LIMIT).every((s) => s !== 429)).toBe(true);
    expect(statuses.slice(AUTH_LIMIT)).toEqual([429, 429, 429]);
    // Another address is not affected.
    const other = await api(app(0), 'POST', '/api/auth/login', {
      json: { email: 'nobody-here@example.org', password: 'not the password at all' },
    });
    expect(other.status).not.toBe(429);
  });

  it('delivers a message sent through instance 1 to streams held on instance 2 and through nginx', async () => {
    const onB = await stream(`${app(1)}/api/message/stream`, patient.token);
    const viaNginx = await stream(`${cluster.url}/api/message/stream`, patient.token);
    const started = performance.now();
    const sent = await api(app(0), 'POST', '/api/message/send', {
      token: doctor.token,
      json: { recipientId: patient.id, content: 'Sent through instance 1' },
    });
    expect(sent.status).toBe(201);
    const id = (sent.body.data as { id: string }).id;
    for (const s of [onB, viaNginx]) {
      const got = await s.next((e) => e.event === 'message' && JSON.parse(e.data).id === id, 2_000);
      expect(got.at - started).toBeLessThan(2_000);
      expect(JSON.parse(got.data).content).toBe('Sent through instance 1');
    }
  });

  it('loses no acknowledged upload when an instance is killed with SIGKILL mid-way', async () => {
    const victim = cluster.instances[2]!;
    const total = 36;
    const concurrency = 6;
    const files = Array.from({ length: total }, (_, i) =>
      // A PDF is stored as is (no thumbnail); random bytes make every file distinct.
      Buffer.concat([Buffer.from(`%PDF-1.4\n% upload ${i}\n`), randomBytes(192 * 1024)]),
    );
    const results: Array<{ i: number; status: number | 'network error'; id?: string; afterDeath: boolean }> = [];
    let killed = false;
    let dead = false;
    void victim.exited.then(() => (dead = true));
    let next = 0;
    const upload = async (i: number) => {
      const startedAfterDeath = dead;
      const form = new FormData();
      form.append('caption', `scale-out ${i}`);
      form.append('file', new Blob([new Uint8Array(files[i]!)], { type: 'application/pdf' }), `scan-${i}.pdf`);
      try {
        const res = await fetch(`${cluster.url}/api/upload/image`, {
          method: 'POST',
          body: form,
          headers: { authorization: `Bearer ${doctor.token}` },
        });
        const body = (await res.json().catch(() => ({}))) as { data?: { id: string } };
        results.push({ i, status: res.status, id: body.data?.id, afterDeath: startedAfterDeath });
      } catch {
        results.push({ i, status: 'network error', afterDeath: startedAfterDeath });
      }
    };
    const worker = async () => {
      while (next < total) {
        const i = next++;
        if (i === 10 && !killed) {
          killed = true;
          victim.child.kill('SIGKILL');
        }
        await upload(i);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    await victim.exited;
    expect(victim.child.signalCode).toBe('SIGKILL');

    const ok = results.filter((r) => r.status === 201);
    const failed = results.filter((r) => r.status !== 201);
    // Only requests the dead instance had already received may fail, and only as a gateway error.
    expect(
      failed.every((r) => r.status === 502 || r.status === 'network error'),
      JSON.stringify(failed),
    ).toBe(true);
    expect(failed.length).toBeLessThanOrEqual(concurrency);
    // Once the process is gone, nginx routes every new upload to the instances that are left.
    expect(results.filter((r) => r.afterDeath).every((r) => r.status === 201)).toBe(true);
    expect(ok.length).toBeGreaterThanOrEqual(total - concurrency);

    // Every acknowledged upload, byte for byte, through each surviving instance and through nginx.
    for (const r of ok) {
      expect(r.id).toBeTruthy();
      for (const base of [app(0), app(1), cluster.url]) {
        const res = await fetch(`${base}/api/images/${r.id}/content`, {
          headers: { authorization: `Bearer ${doctor.token}` },
        });
        expect(res.status).toBe(200);
        expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(files[r.i]!));
      }
    }
    // Nothing acknowledged went missing from the listing either.
    const list = await api(cluster.url, 'GET', '/api/upload/my-images?limit=100', { token: doctor.token, ip: null });
    expect(list.status).toBe(200);
    const listed = new Set((list.body.data as Array<{ id: string }>).map((x) => x.id));
    for (const r of ok) expect(listed.has(r.id!)).toBe(true);
  }, 60_000);
});

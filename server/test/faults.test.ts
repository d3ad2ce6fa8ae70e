import { Redis } from 'ioredis';
import S3rver from 's3rver';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture, uploadFile } from '../src/modules/images/images.test-helpers.ts';
import { type SseConnection, openSse } from '../src/modules/messages/sse-test-client.ts';
import { createS3Storage } from '../src/storage/s3-storage.ts';
import { testDbKind } from './database.ts';
import { type SignedIn, type TestApp, ADMIN, createTestApp, login, loginAdmin, newUser } from './harness.ts';
import { type TcpProxy, startTcpProxy, throughProxy } from './tcp-proxy.ts';

/**
 * Outages of the services the app depends on, played with a TCP proxy per test between the app and
 * the shared PostgreSQL, Redis or SMTP server: cutting the proxy is an outage for this app alone.
 */
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const pgSkip = testDbKind !== 'postgres' ? 'needs PostgreSQL (TEST_DATABASE_URL); PGlite runs in-process' : null;
const redisUrl = process.env.TEST_REDIS_URL;
const redisSkip = redisUrl ? null : 'TEST_REDIS_URL is not set';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expectEnvelope(res: { statusCode: number; json(): unknown }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json() as { success: boolean; code: string; message: string };
  expect(body).toMatchObject({ success: false, code });
  expect(body.message.length).toBeGreaterThan(10);
  return body;
}

async function proxied(url: string): Promise<TcpProxy> {
  const u = new URL(url);
  const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
  cleanups.push(() => proxy.close());
  return proxy;
}

async function app(tweak: Parameters<typeof createTestApp>[0]): Promise<TestApp> {
  const t = await createTestApp(tweak);
  cleanups.push(() => t.close());
  return t;
}

/**
 * One app for the Redis, storage and SMTP cases (an app per case would not fit the file's time
 * budget): Redis and SMTP reached through proxies, the auth rate limit low enough to reach.
 */
let sharedApp: Promise<{ t: TestApp; redis: TcpProxy | null; smtp: TcpProxy }> | null = null;
function shared() {
  sharedApp ??= (async () => {
    const redis = redisUrl ? await proxied(redisUrl) : null;
    const smtpTarget = { host: '127.0.0.1', port: 0 };
    const smtp = await startTcpProxy(smtpTarget);
    cleanups.push(() => smtp.close());
    const t = await app((c) => {
      if (redis) c.redisUrl = throughProxy(redisUrl!, redis).replace(/\/$/, '');
      c.rateLimits.authPerMinute = 30;
      if (c.mail.transport !== 'smtp') throw new Error('the harness mails through SMTP');
      smtpTarget.port = Number(new URL(c.mail.url).port);
      c.mail = { ...c.mail, url: throughProxy(c.mail.url, smtp) };
    });
    return { t, redis, smtp };
  })();
  return sharedApp;
}

describe.skipIf(pgSkip !== null)(`PostgreSQL outage${pgSkip ? ` (skipped: ${pgSkip})` : ''}`, () => {
  it('answers 503 with the envelope while the database is gone and recovers by itself', async () => {
    const proxy = await proxied(process.env.TEST_DATABASE_URL!);
    const t = await app((c) => {
      if (c.database.kind === 'postgres') c.database = { kind: 'postgres', url: throughProxy(c.database.url, proxy) };
    });
    const admin = await loginAdmin(t);
    const list = () => t.request({ method: 'GET', url: '/api/upload/images?limit=5', token: admin.token });
    expect((await list()).statusCode).toBe(200);

    // Mid-run: eight clients keep listing; the database goes away under them and comes back.
    const statuses: number[] = [];
    let running = true;
    const clients = Array.from({ length: 8 }, async () => {
      while (running) {
        const res = await list();
        statuses.push(res.statusCode);
        if (res.statusCode !== 200) expectEnvelope(res, 503, 'unavailable');
      }
    });
    await sleep(300);
    await proxy.cut();

    const started = Date.now();
    const down = await list();
    const body = expectEnvelope(down, 503, 'unavailable');
    expect(body.message).toMatch(/database is unavailable/i);
    expect(down.headers['retry-after']).toBe('5');
    expectEnvelope(await t.request({ method: 'GET', url: '/api/ready' }), 503, 'unavailable');
    expectEnvelope(
      await t.request({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: ADMIN.email, password: 'x'.repeat(12) },
      }),
      503,
      'unavailable',
    );
    // Liveness is the process, not its dependencies: a load balancer must not restart it for this.
    expect((await t.request({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);

    await sleep(500);
    await proxy.restore();
    const back = Date.now();
    await expect
      .poll(async () => (await t.request({ method: 'GET', url: '/api/ready' })).statusCode, {
        timeout: 5_000,
        interval: 100,
      })
      .toBe(200);
    expect(Date.now() - back).toBeLessThan(5_000);
    await sleep(300);
    running = false;
    await Promise.all(clients);

    // Every request answered: 200 or the 503 envelope, never a 500 or a hang; the same session works on.
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    expect(statuses.at(-1)).toBe(200);
    expect((await list()).statusCode).toBe(200);
    expect((await login(t, ADMIN.email, ADMIN.password)).token).toBeTruthy();
  });
});

describe.skipIf(redisSkip !== null)(`Redis outage${redisSkip ? ` (skipped: ${redisSkip})` : ''}`, () => {
  it('keeps login, rate limits and sends working in-process, and resumes fan-out when Redis returns', async () => {
    const { t, redis } = await shared();
    const proxy = redis!;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const bus = t.app.ctx.realtime.bus;
    await expect.poll(() => bus.degraded, { timeout: 5_000 }).toBe(false);

    // Another instance's view of the channel: a subscriber straight on Redis.
    const heard: number[] = [];
    const listener = new Redis(redisUrl!, { lazyConnect: true });
    cleanups.push(async () => listener.disconnect());
    await listener.connect();
    await listener.subscribe(t.app.ctx.realtime.channel);
    listener.on('message', (_ch: string, raw: string) => {
      const e = (JSON.parse(raw) as { event: { type: string; messageId?: number } }).event;
      if (e.type === 'message') heard.push(e.messageId!);
    });

    const doctor = await newUser(t, 'healthProvider');
    const patient = await newUser(t, 'patient');
    const send = (from: SignedIn, to: SignedIn, content: string) =>
      t.request({
        method: 'POST',
        url: '/api/message/send',
        token: from.token,
        payload: { recipientId: to.user.id, content },
      });
    const first = await send(doctor, patient, 'Before the outage');
    expect(first.statusCode).toBe(201);
    await expect.poll(() => heard.includes(first.json().data.id), { timeout: 2_000 }).toBe(true);

    await proxy.cut();
    await expect.poll(() => bus.degraded, { timeout: 5_000 }).toBe(true);
    const stream: SseConnection = await openSse(`${base}/api/message/stream`, patient.token);
    cleanups.push(async () => stream.close());
    expect(stream.status).toBe(200);

    // Login (two factors), sends and live delivery on this instance all go on; nothing is dropped.
    const again = await login(t, doctor.user.email, doctor.password);
    const sent = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 2 ? again : doctor, patient, `During the outage ${i}`)),
    );
    expect(sent.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    for (const r of sent)
      await stream.next((e) => e.event === 'message' && JSON.parse(e.data).id === r.json().data.id, 2_000);
    expect(heard).not.toContain(sent[0]!.json().data.id);

    // Rate limits are counted in-process: still enforced, answering 429 with the envelope, never 5xx.
    const tries = [];
    for (let i = 0; i < 35; i++) {
      tries.push(
        await t.request({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: `nobody${i}@example.org`, password: 'Wrong-password-1' },
          // One address of its own, so that the limit it reaches does not hold up the other cases.
          remoteAddress: '10.9.8.7',
        }),
      );
    }
    expect(tries.every((r) => r.statusCode === 401 || r.statusCode === 429)).toBe(true);
    expect(tries[0]!.statusCode).toBe(401);
    expectEnvelope(tries.at(-1)!, 429, 'rate_limited');

    // Redis is back: the bus reconnects by itself and events reach other instances again.
    await proxy.restore();
    await expect.poll(() => bus.degraded, { timeout: 10_000, interval: 100 }).toBe(false);
    const after = await send(doctor, patient, 'After the outage');
    expect(after.statusCode).toBe(201);
    await expect.poll(() => heard.includes(after.json().data.id), { timeout: 2_000 }).toBe(true);
    await stream.next((e) => e.event === 'message' && JSON.parse(e.data).id === after.json().data.id, 2_000);
  });
});

describe('blob storage write errors', () => {
  it('answers the upload 503 with the envelope and leaves no image row and no partial blob', async () => {
    const { t } = await shared();
    const doctor = await newUser(t, 'healthProvider');
    const png = fixture('other/photo_chelsea_cat.png');
    expect((await uploadFile(t, doctor.token, png)).statusCode).toBe(201);
    const blobs = join(t.dataDir, 'blobs');
    const files = () =>
      readdirSync(blobs, { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => join(d.parentPath, d.name))
        .sort();
    const mine = async () =>
      (await t.request({ method: 'GET', url: '/api/upload/my-images?limit=100', token: doctor.token })).json()
        .data as Array<{ thumbnailStatus: string }>;
    const count = async () => (await mine()).length;
    // Thumbnails are written in the background after the answer: let them finish first.
    const settled = () =>
      expect
        .poll(async () => (await mine()).some((i) => i.thumbnailStatus === 'pending'), { timeout: 10_000 })
        .toBe(false);
    await settled();
    const before = files();
    expect(await count()).toBe(1);

    // The disk refuses writes. The tests run as root, for whom chmod changes nothing, so the
    // directory writes go to is replaced by a plain file: every write fails with ENOTDIR.
    const tmp = join(blobs, '.tmp');
    rmSync(tmp, { recursive: true, force: true });
    writeFileSync(tmp, 'not a directory');
    try {
      const res = await uploadFile(t, doctor.token, png);
      const body = expectEnvelope(res, 503, 'unavailable');
      expect(body.message).toMatch(/could not be stored/);
      expect(await count()).toBe(1);
      expect(files()).toEqual([...before, tmp].sort());
    } finally {
      rmSync(tmp, { force: true });
      mkdirSync(tmp, { mode: 0o700 });
    }
    expect((await uploadFile(t, doctor.token, png)).statusCode).toBe(201);
    expect(await count()).toBe(2);
    await settled();
    expect(existsSync(tmp) && readdirSync(tmp)).toEqual([]);
  });
});

describe('S3 store gone mid-upload', () => {
  it('answers 503, keeps no row and no object, and stores again once S3 is back', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'medshare-s3-fault-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const s3 = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'faults', configs: [] }],
    });
    const { port } = await s3.run();
    cleanups.push(() => s3.close());
    const proxy = await startTcpProxy({ host: '127.0.0.1', port });
    cleanups.push(() => proxy.close());
    const s3Settings = {
      endpoint: `http://127.0.0.1:${proxy.port}`,
      region: 'us-east-1',
      bucket: 'faults',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
      prefix: 'blobs/',
    };
    const t = await app((c) => {
      c.storage = { ...c.storage, driver: 's3', s3: s3Settings };
    });
    const doctor = await newUser(t, 'healthProvider');
    // The test's own view of the bucket, straight to s3rver.
    const direct = createS3Storage({ ...s3Settings, endpoint: `http://127.0.0.1:${port}` });
    cleanups.push(async () => direct.close());
    const objects = async () => {
      const found: string[] = [];
      for await (const b of direct.list()) found.push(b.key);
      return found.sort();
    };
    const count = async () =>
      (await t.request({ method: 'GET', url: '/api/upload/my-images?limit=100', token: doctor.token })).json().data
        .length as number;
    // 9 MB: a multipart upload (8 MB parts), cut inside the first part. (A single PUT cut short
    // is refused by S3 for its wrong length; s3rver would keep the truncated object instead.)
    const big = {
      name: 'scan.pdf',
      type: 'application/pdf',
      data: Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(9 * 1024 * 1024)]),
    };
    expect((await uploadFile(t, doctor.token, fixture('other/minimal_document_1page.pdf'))).statusCode).toBe(201);
    const before = await objects();
    expect(before).toHaveLength(1);

    const cut = proxy.cutAfter(2 * 1024 * 1024);
    const started = Date.now();
    const res = await uploadFile(t, doctor.token, big);
    await cut;
    const body = expectEnvelope(res, 503, 'unavailable');
    expect(body.message).toMatch(/could not be stored/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await count()).toBe(1);
    expect(await objects()).toEqual(before);

    await proxy.restore();
    // An unfinished multipart upload the abort could not reach is a partial the sweeper removes.
    await direct.removeStalePartials(new Date(Date.now() + 1_000));
    expect(await objects()).toEqual(before);
    const stored = await uploadFile(t, doctor.token, fixture('other/minimal_document_1page.pdf'));
    expect(stored.statusCode).toBe(201);
    expect(await count()).toBe(2);
    expect(await objects()).toHaveLength(2);

    // Reading while the store is away: a clear 503, not a 500; and it reads again once S3 is back.
    const contentUrl = `/api/images/${stored.json().data.id}/content`;
    await proxy.cut();
    expectEnvelope(await t.request({ method: 'GET', url: contentUrl, token: doctor.token }), 503, 'unavailable');
    await proxy.restore();
    expect((await t.request({ method: 'GET', url: contentUrl, token: doctor.token })).statusCode).toBe(200);
  });
});

describe('SMTP outage', () => {
  // Forgot-password while the server refuses mail is covered in auth.test.ts; here the server is gone.
  it('refuses register and login with 503 mail_unavailable, leaves no account, and works once SMTP is back', async () => {
    const { t, smtp: proxy } = await shared();
    const patient = await newUser(t, 'patient');
    await proxy.cut();

    const body = {
      role: 'patient',
      email: 'outage@example.org',
      username: 'outage1',
      password: 'Tr0ubadour-and-horse',
      firstname: 'Out',
      lastname: 'Age',
    };
    const started = Date.now();
    const reg = await t.request({ method: 'POST', url: '/api/auth/register', payload: body });
    expectEnvelope(reg, 503, 'mail_unavailable');
    const signIn = await t.request({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: patient.user.email, password: patient.password },
    });
    expectEnvelope(signIn, 503, 'mail_unavailable');
    expect(Date.now() - started).toBeLessThan(5_000);
    // The session already open is not affected.
    expect((await t.request({ method: 'GET', url: '/api/users/profile', token: patient.token })).statusCode).toBe(200);

    await proxy.restore();
    // The failed registration left nothing behind: the same e-mail and username register now.
    const retry = await t.request({ method: 'POST', url: '/api/auth/register', payload: body });
    expect(retry.statusCode).toBe(201);
    expect((await login(t, patient.user.email, patient.password)).token).toBeTruthy();
  });
});

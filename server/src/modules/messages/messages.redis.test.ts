import { type AddressInfo, type Server, type Socket, createServer, connect } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  type SignedIn,
  type TestApp,
  createTestApp,
  newUser,
  secondInstance,
  twoInstancesSkip,
} from '../../../test/harness.ts';
import { type SseConnection, openSse } from './sse-test-client.ts';

const redisUrl = process.env.TEST_REDIS_URL;

const streams: SseConnection[] = [];
const apps: TestApp[] = [];
afterEach(() => streams.splice(0).forEach((s) => s.close()));
// The first app owns the database the others borrow: close the borrowers first.
afterAll(async () => {
  for (const app of apps.reverse()) await app.close();
});

async function listening(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

async function stream(baseUrl: string, who: SignedIn): Promise<SseConnection> {
  const s = await openSse(`${baseUrl}/api/message/stream`, who.token);
  streams.push(s);
  expect(s.status).toBe(200);
  await s.next((e) => e.event === 'ready');
  return s;
}

const send = (t: TestApp, from: SignedIn, to: SignedIn, content: string) =>
  t.request({
    method: 'POST',
    url: '/api/message/send',
    token: from.token,
    payload: { recipientId: to.user.id, content },
  });

/** A TCP proxy in front of Redis that the test can cut and restore, to play a Redis outage. */
async function redisProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 6379), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  await start();
  return {
    url: () => `redis://127.0.0.1:${port}`,
    async cut() {
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        sockets.forEach((s) => s.destroy());
      });
    },
    restore: start,
  };
}

describe('Redis unreachable', () => {
  it('still commits sends and delivers on this instance when Redis cannot be reached', async () => {
    const t = await createTestApp((c) => {
      c.redisUrl = 'redis://127.0.0.1:1';
    });
    apps.push(t);
    const base = await listening(t);
    expect(t.app.ctx.realtime.bus.kind).toBe('redis');
    const doctor = await newUser(t, 'healthProvider');
    const patient = await newUser(t, 'patient');
    const s = await stream(base, patient);
    const res = await send(t, doctor, patient, 'Sent while Redis is down');
    expect(res.statusCode).toBe(201);
    const event = await s.next((e) => e.event === 'message', 1_000);
    expect(JSON.parse(event.data).content).toBe('Sent while Redis is down');
    expect(t.app.ctx.realtime.bus.degraded).toBe(true);
  });
});

describe.skipIf(twoInstancesSkip !== null)(
  `two instances through Redis${twoInstancesSkip ? ` (skipped: ${twoInstancesSkip})` : ''}`,
  () => {
    it('delivers a message sent on one instance to a stream on the other within a second, both ways', async () => {
      const a = await createTestApp((c) => {
        c.redisUrl = redisUrl!;
      });
      apps.push(a);
      const b = await secondInstance(a, (c) => {
        c.redisUrl = redisUrl!;
      });
      apps.push(b);
      // Each test database names its own channel: parallel runs on one Redis never mix.
      expect(b.app.ctx.realtime.channel).toBe(a.app.ctx.realtime.channel);
      const [baseA, baseB] = [await listening(a), await listening(b)];
      const doctor = await newUser(a, 'healthProvider');
      const patient = await newUser(a, 'patient');
      for (const t of [a, b]) await expect.poll(() => t.app.ctx.realtime.bus.degraded, { timeout: 5_000 }).toBe(false);

      const onB = await stream(baseB, patient);
      const started = performance.now();
      const res = await send(a, doctor, patient, 'From instance A');
      expect(res.statusCode).toBe(201);
      const got = await onB.next((e) => e.event === 'message', 1_000);
      expect(got.at - started).toBeLessThan(1_000);
      expect(JSON.parse(got.data)).toEqual(res.json().data);

      const onA = await stream(baseA, doctor);
      const reply = await send(b, patient, doctor, 'Reply through instance B');
      const back = await onA.next(
        (e) => e.event === 'message' && JSON.parse(e.data).id === reply.json().data.id,
        1_000,
      );
      expect(JSON.parse(back.data).content).toBe('Reply through instance B');
    });

    it('keeps sending through a Redis outage and delivers what was missed once Redis is back', async () => {
      const proxy = await redisProxy(new URL(redisUrl!));
      const a = await createTestApp((c) => {
        c.redisUrl = proxy.url();
      });
      apps.push(a);
      const b = await secondInstance(a, (c) => {
        c.redisUrl = proxy.url();
      });
      apps.push(b);
      const baseB = await listening(b);
      await listening(a);
      const doctor = await newUser(a, 'healthProvider');
      const patient = await newUser(a, 'patient');
      for (const t of [a, b]) await expect.poll(() => t.app.ctx.realtime.bus.degraded, { timeout: 5_000 }).toBe(false);
      const onB = await stream(baseB, patient);

      await proxy.cut();
      await expect.poll(() => b.app.ctx.realtime.bus.degraded, { timeout: 5_000 }).toBe(true);
      const during = await send(a, doctor, patient, 'Sent during the outage');
      expect(during.statusCode).toBe(201);

      await proxy.restore();
      const got = await onB.next((e) => e.event === 'message', 15_000);
      expect(JSON.parse(got.data).id).toBe(during.json().data.id);
      await expect.poll(() => a.app.ctx.realtime.bus.degraded, { timeout: 10_000 }).toBe(false);
      await expect.poll(() => b.app.ctx.realtime.bus.degraded, { timeout: 10_000 }).toBe(false);
      const after = await send(a, doctor, patient, 'After recovery');
      const live = await onB.next(
        (e) => e.event === 'message' && JSON.parse(e.data).id === after.json().data.id,
        1_000,
      );
      expect(JSON.parse(live.data).content).toBe('After recovery');
      expect(onB.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data).content)).toEqual([
        'Sent during the outage',
        'After recovery',
      ]);
    }, 60_000);
  },
);

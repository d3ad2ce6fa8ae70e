import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SseConnection, openSse } from '../src/modules/messages/sse-test-client.ts';
import { type SpawnedServer, freePort, outboxReader, signInOverHttp, startServer } from './spawned-server.ts';

/**
 * Slow clients against the real server process (issue 14 item 4): a body trickling one byte per
 * 10 s once held its socket forever, and 20 000 of them exhausted the file descriptors. The
 * limits here are the production ones scaled down (HTTP_* variables), measured on raw sockets.
 */
const ADMIN = { email: 'slow-admin@test.medshare', password: 'Slow-clients-admin-password-1' };
const LIMITS = {
  HTTP_HEADERS_TIMEOUT_MS: '1000',
  HTTP_BODY_IDLE_TIMEOUT_MS: '1000',
  HTTP_REQUEST_TIMEOUT_MS: '3000',
  HTTP_UPLOAD_TIMEOUT_MS: '6000',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: '1500',
  HTTP_MAX_CONNECTIONS_PER_IP: '8',
};
const CAP = Number(LIMITS.HTTP_MAX_CONNECTIONS_PER_IP);

let dataDir: string;
let server: SpawnedServer;
let port: number;
let metricsPort: number;
const sockets = new Set<Socket>();
const timers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'medshare-slow-'));
  metricsPort = await freePort();
  server = await startServer({
    dataDir,
    admin: ADMIN,
    env: { ...LIMITS, METRICS_PORT: String(metricsPort) },
    // A cold start (PGlite, migrations, seed) took 30 s+ on a 2-core machine at load 14.
    startTimeoutMs: 90_000,
  });
  port = Number(new URL(server.base).port);
}, 100_000);
afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  for (const socket of sockets) socket.destroy();
  await server?.stop('SIGTERM');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RawClient {
  socket: Socket;
  /** Milliseconds from connect to close, and what the server sent. */
  closed: Promise<{ afterMs: number; received: string }>;
  /** Writes `bytes`, one every `everyMs`, until the socket closes. */
  trickle(bytes: string, everyMs: number): void;
}

async function rawClient(localAddress = '127.0.0.1'): Promise<RawClient> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  sockets.add(socket);
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  socket.on('error', () => undefined);
  let start = Date.now();
  const closed = new Promise<{ afterMs: number; received: string }>((resolve) =>
    socket.once('close', () => {
      sockets.delete(socket);
      resolve({ afterMs: Date.now() - start, received });
    }),
  );
  // Connected, or closed first: a server over its per-address cap resets the socket it has just
  // accepted, and on a busy machine that reset can come before the 'connect' event (CI saw the
  // refused client's setup fail with ECONNRESET). The caller reads a refusal from `closed`.
  await Promise.race([new Promise((resolve) => socket.once('connect', resolve)), closed]);
  start = Date.now();
  return {
    socket,
    closed,
    trickle(bytes, everyMs) {
      let i = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || i >= bytes.length) return clearInterval(timer);
        socket.write(bytes[i++]!);
      }, everyMs);
      timers.add(timer);
      socket.once('close', () => clearInterval(timer));
    },
  };
}

/** A plain request from a given source address (node:http, which can choose it; fetch cannot). */
function getFrom(localAddress: string, path = '/api/health'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const loginHead = (length: number) =>
  `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('slow clients are cut (HTTP_* limits)', () => {
  it('cuts a client that trickles its headers after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const client = await rawClient();
    client.socket.write('GET /api/health HTTP/1.1\r\n');
    client.trickle('X-Slow: ' + 'a'.repeat(100), 200);
    const { afterMs, received } = await client.closed;
    expect(afterMs).toBeGreaterThanOrEqual(900);
    expect(afterMs).toBeLessThan(2_500);
    // Node answers 408 before closing; never the health answer.
    expect(received).not.toContain('"ok"');
  });

  it('cuts a connection that sends nothing at all', async () => {
    const client = await rawClient();
    const { afterMs } = await client.closed;
    expect(afterMs).toBeLessThan(3_000);
  });

  it('cuts a body that goes quiet for HTTP_BODY_IDLE_TIMEOUT_MS', async () => {
    const client = await rawClient();
    client.socket.write(loginHead(100));
    client.trickle('{"email":"a@example.org"', 1_500);
    const { afterMs, received } = await client.closed;
    expect(afterMs).toBeGreaterThanOrEqual(900);
    expect(afterMs).toBeLessThan(2_500);
    expect(received).toBe('');
  });

  it('cuts a body that keeps trickling at HTTP_REQUEST_TIMEOUT_MS', async () => {
    const client = await rawClient();
    client.socket.write(loginHead(1_000));
    // Never idle for a second, never done: a byte every 100 ms leaves 900 ms for a loaded machine's
    // stalls (one of 300 ms was cut by the idle limit at 1.9 s while a build ran beside the tests).
    client.trickle('x'.repeat(1_000), 100);
    const { afterMs } = await client.closed;
    expect(afterMs).toBeGreaterThanOrEqual(2_800);
    expect(afterMs).toBeLessThan(4_500);
  });

  it('gives the upload route HTTP_UPLOAD_TIMEOUT_MS for its body, not more', async () => {
    const client = await rawClient();
    client.socket.write(
      'POST /api/upload/image HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 100000\r\n\r\n',
    );
    client.trickle('x'.repeat(1_000), 100);
    const { afterMs } = await client.closed;
    expect(afterMs).toBeGreaterThanOrEqual(5_800);
    expect(afterMs).toBeLessThan(7_500);
  }, 15_000);

  it('keeps an SSE stream open past every receive limit', async () => {
    const outbox = outboxReader(dataDir);
    const { token } = await signInOverHttp(server.base, outbox, ADMIN.email, ADMIN.password);
    let stream: SseConnection | null = null;
    try {
      stream = await openSse(`${server.base}/api/message/stream`, token);
      expect(stream.status).toBe(200);
      let ended = false;
      void stream.ended.then(() => (ended = true));
      await sleep(7_000); // > every limit, the upload deadline (Node's requestTimeout) included
      expect(ended).toBe(false);
    } finally {
      stream?.close();
    }
  }, 20_000);
});

describe('connections per address (HTTP_MAX_CONNECTIONS_PER_IP)', () => {
  it('refuses the (cap+1)-th socket from one address while other addresses are served', async () => {
    // The attack: CAP sockets from 127.0.0.1, each trickling a body (alive until the request deadline).
    const attackers: RawClient[] = [];
    for (let i = 0; i < CAP; i++) {
      const client = await rawClient('127.0.0.1');
      client.socket.write(loginHead(1_000));
      client.trickle('x'.repeat(1_000), 300);
      attackers.push(client);
    }
    await sleep(200);
    expect(attackers.every((a) => !a.socket.destroyed)).toBe(true);

    const extra = await rawClient('127.0.0.1');
    extra.socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n');
    const refused = await extra.closed;
    expect(refused.afterMs).toBeLessThan(500);
    expect(refused.received).toBe('');

    // Another address is served normally during the attack, and the attackers were not cut by it.
    expect(await getFrom('127.0.0.2')).toBe(200);
    expect(await getFrom('127.0.0.3', '/api/ready')).toBe(200);
    expect(attackers.every((a) => !a.socket.destroyed)).toBe(true);

    // Once the attack's sockets are gone, the address is served again: as soon as the server has
    // seen them close (on a busy machine later than the client's own close; a reset meanwhile).
    for (const a of attackers) a.socket.destroy();
    await Promise.all(attackers.map((a) => a.closed));
    await expect.poll(() => getFrom('127.0.0.1').catch(() => 0), { timeout: 5_000 }).toBe(200);
  }, 15_000);
});

describe('metrics (METRICS_PORT)', () => {
  it('answers 404 on the public port and serves Prometheus text on its own listener', async () => {
    const publicAnswer = await fetch(`${server.base}/metrics`);
    expect(publicAnswer.status).toBe(404);
    expect(await publicAnswer.text()).not.toContain('medshare_http_request_duration_seconds');
    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await own.text()).toMatch(/medshare_http_request_duration_seconds_bucket\{[^}]*route="\/api\/health"/);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/api/health`)).status).toBe(404);
  });
});

/**
 * Message delivery latency with many connected Server-Sent Events clients.
 *
 *   npx node bench/messages-latency.ts [--clients 200] [--messages 2000] [--rate 100]
 *   MEDSHARE_TEST_DB=postgres TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx node bench/messages-latency.ts
 *
 * A child process runs the real app (the test harness: fresh database, real SMTP for the sign-in
 * codes) and creates the users; this process holds the streams (node:http, not fetch, so the client
 * costs little CPU on a 2-core machine), sends messages at a fixed rate from many sender sessions and
 * measures, per message, the time from the start of `POST /api/message/send` to the event arriving
 * on the recipient's stream. Not part of npm test.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseSseChunk } from '../server/src/modules/messages/sse-test-client.ts';

interface Account {
  id: string;
  token: string;
}
interface Fixture {
  base: string;
  recipients: Account[];
  senders: Account[];
  database: string;
}

const SENDER_PROVIDERS = 5;
const SESSIONS_PER_PROVIDER = 10;

async function serve(clients: number) {
  const { createTestApp, login, newUser } = await import('../server/test/harness.ts');
  // 200 streams plus the agent's sockets, all from 127.0.0.1: over the per-address cap.
  const t = await createTestApp((c) => {
    c.http.maxConnectionsPerIp = 0;
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address() as { port: number };
  const recipients: Account[] = [];
  for (let i = 0; i < clients; i++) {
    const u = await newUser(t, 'patient');
    recipients.push({ id: u.user.id, token: u.token });
  }
  const senders: Account[] = [];
  for (let p = 0; p < SENDER_PROVIDERS; p++) {
    const doc = await newUser(t, 'healthProvider');
    senders.push({ id: doc.user.id, token: doc.token });
    // Sends are rate limited per session; many sessions carry the load as many people would.
    for (let s = 1; s < SESSIONS_PER_PROVIDER; s++)
      senders.push({ id: doc.user.id, token: (await login(t, doc.user.email, doc.password)).token });
  }
  const fixture: Fixture = {
    base: `http://127.0.0.1:${address.port}`,
    recipients,
    senders,
    database: t.app.ctx.database.kind,
  };
  process.stdout.write(`FIXTURE ${JSON.stringify(fixture)}\n`);
  const stop = async () => {
    await t.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function run() {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '200' },
      messages: { type: 'string', default: '2000' },
      rate: { type: 'string', default: '100' },
      warmup: { type: 'string', default: '100' },
    },
  });
  const clients = Number(values.clients);
  const total = Number(values.messages);
  const rate = Number(values.rate);
  const warmup = Number(values.warmup);

  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', String(clients)], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: process.env,
  });
  const fixture = await new Promise<Fixture>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.startsWith('FIXTURE ')) resolve(JSON.parse(line.slice(8)) as Fixture);
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const url = new URL(fixture.base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const sentAt = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  const arrivedAt = new Map<string, number>();
  const latencies: number[] = [];
  let received = 0;
  let duplicates = 0;
  const seen = new Set<string>();
  let onReceive: () => void = () => {};

  // Open every stream and wait for its ready event.
  await Promise.all(
    fixture.recipients.map(
      (r) =>
        new Promise<void>((resolve, reject) => {
          const req = http.get(
            {
              host: url.hostname,
              port: url.port,
              path: '/api/message/stream',
              headers: { authorization: `Bearer ${r.token}`, accept: 'text/event-stream' },
            },
            (res) => {
              if (res.statusCode !== 200) return reject(new Error(`stream ${res.statusCode}`));
              res.setEncoding('utf8');
              let buffer = '';
              res.on('data', (chunk: string) => {
                const now = performance.now();
                buffer += chunk;
                const parsed = parseSseChunk(buffer);
                buffer = parsed.rest;
                for (const e of parsed.events) {
                  if (e.event === 'ready') resolve();
                  if (e.event !== 'message') continue;
                  const { content } = JSON.parse(e.data) as { content: string };
                  const started = sentAt.get(content);
                  if (started === undefined) continue;
                  if (seen.has(content)) duplicates++;
                  seen.add(content);
                  received++;
                  if (!content.startsWith('warmup')) {
                    latencies.push(now - started);
                    arrivedAt.set(content, now);
                  }
                  onReceive();
                }
              });
            },
          );
          req.on('error', reject);
        }),
    ),
  );

  const sendLatencies: number[] = [];
  let failures = 0;
  function send(from: Account, to: Account, content: string): Promise<void> {
    return new Promise((resolve) => {
      const body = JSON.stringify({ recipientId: to.id, content });
      const started = performance.now();
      sentAt.set(content, started);
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: '/api/message/send',
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${from.token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 201) failures++;
            else if (!content.startsWith('warmup')) {
              sendLatencies.push(performance.now() - started);
              answeredAt.set(content, performance.now());
            }
            resolve();
          });
        },
      );
      req.on('error', () => {
        failures++;
        resolve();
      });
      req.end(body);
    });
  }

  const interval = 1000 / rate;
  const pending: Promise<void>[] = [];
  const begin = performance.now();
  for (let i = 0; i < warmup + total; i++) {
    const due = begin + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const from = fixture.senders[i % fixture.senders.length]!;
    const to = fixture.recipients[Math.floor(Math.random() * fixture.recipients.length)]!;
    pending.push(send(from, to, `${i < warmup ? 'warmup' : 'bench'} ${i} ${Math.random().toString(36).slice(2)}`));
  }
  await Promise.all(pending);
  const expected = warmup + total - failures;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 5_000);
    onReceive = () => {
      if (received >= expected) {
        clearTimeout(timer);
        resolve();
      }
    };
    onReceive();
  });
  const elapsed = (performance.now() - begin) / 1000;

  // The stream event vs the sender's own 201: what live delivery adds on top of the send itself
  // (negative when the event beats the answer, which is usual: the publish happens before the audit write).
  const afterAnswer = [...arrivedAt]
    .flatMap(([content, at]) => (answeredAt.has(content) ? [at - answeredAt.get(content)!] : []))
    .sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  sendLatencies.sort((a, b) => a - b);
  const fmt = (n: number) => n.toFixed(1);
  const result = {
    database: fixture.database,
    clients,
    messages: total,
    targetRate: rate,
    achievedRate: Number(((warmup + total) / elapsed).toFixed(1)),
    sendFailures: failures,
    delivered: latencies.length,
    lost: total - failures - latencies.length,
    duplicates,
    deliveryMs: {
      p50: fmt(percentile(latencies, 50)),
      p90: fmt(percentile(latencies, 90)),
      p99: fmt(percentile(latencies, 99)),
      max: fmt(latencies.at(-1) ?? NaN),
    },
    sendResponseMs: { p50: fmt(percentile(sendLatencies, 50)), p99: fmt(percentile(sendLatencies, 99)) },
    eventMinusResponseMs: {
      p50: fmt(percentile(afterAnswer, 50)),
      p99: fmt(percentile(afterAnswer, 99)),
      max: fmt(afterAnswer.at(-1) ?? NaN),
    },
  };
  console.log(JSON.stringify(result, null, 2));
  agent.destroy();
  child.stdin!.end();
  await new Promise((r) => child.on('exit', r));
  process.exit(0);
}

if (process.argv[2] === '--serve') await serve(Number(process.argv[3]));
else await run();

/**
 * HTTP scenarios with autocannon against the real server (child process, own PostgreSQL database):
 * image list, thumbnail, content download, upload 100 KB and 10 MB, login with the mailed second
 * factor, message send. Each prints req/s, p50/p99 latency, the server's CPU time per request
 * (/proc/<pid>/stat, all threads) and its peak RSS so far (/proc/<pid>/status VmHWM).
 *
 *   npx node bench/http-scenarios.ts [--duration 10] [--connections 10] [--images 10000] [--only name,name]
 *
 * Data: bench/generate.ts in 'sql' mode (fixtures uploaded through the API, the rest in bulk).
 * Port 8330. Not part of npm test.
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { generate } from './generate.ts';
import {
  agent,
  cpuMs,
  fmt,
  latestCode,
  machine,
  multipart,
  peakRssMb,
  request,
  signIn,
  startMedShare,
  withPg,
} from './support.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    users: { type: 'string', default: '1000' },
    images: { type: 'string', default: '10000' },
    messages: { type: 'string', default: '10000' },
    only: { type: 'string', default: '' },
    port: { type: 'string', default: '8330' },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const PORT = Number(args.port);

interface Scenario {
  name: string;
  connections?: number;
  requests: autocannon.Request[];
  /** Requests per completed operation (the login flow is two). */
  perOp?: number;
}

async function pdfBody(bytes: number) {
  const data = Buffer.concat([Buffer.from('%PDF-1.5\n'), randomBytes(bytes - 9)]);
  return multipart([
    ['caption', 'bench upload'],
    ['file', { name: 'bench.pdf', type: 'application/pdf', data }],
  ]);
}

async function main() {
  console.log(`machine: ${machine()}`);
  const ms = await startMedShare({ port: PORT, database: 'h6_http' });
  try {
    const g = await generate(
      ms,
      { users: Number(args.users), images: Number(args.images), messages: Number(args.messages) },
      'sql',
      'http',
    );
    console.log(`data: ${args.users} users, ${args.images} images, ${args.messages} messages in ${fmt(g.seconds)} s`);
    const admin = g.adminToken;
    // Wait for the fixtures' thumbnails, then pick an image that has one (and one for content).
    for (;;) {
      const pending = await withPg(ms.databaseUrl, async (c) =>
        Number((await c.query(`SELECT count(*) AS n FROM images WHERE thumbnail_status = 'pending'`)).rows[0].n),
      );
      if (!pending) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const { thumbId, contentId } = await withPg(ms.databaseUrl, async (c) => {
      const thumb = await c.query(`SELECT id FROM images WHERE thumbnail_status = 'ready' ORDER BY size_bytes LIMIT 1`);
      const content = await c.query(
        `SELECT id, size_bytes FROM images WHERE id = ANY($1::uuid[]) ORDER BY abs(size_bytes - 150000) LIMIT 1`,
        [g.imageIds],
      );
      return { thumbId: thumb.rows[0].id as string, contentId: content.rows[0].id as string };
    });
    const small = await pdfBody(100 * 1024);
    const large = await pdfBody(10 * 1024 * 1024 - 4096);
    const auth = (t: string) => ({ authorization: `Bearer ${t}` });

    // Message sends are limited to 120 a minute per session: many sessions of the admin carry the load.
    const sessions: string[] = [];
    for (let i = 0; i < 40; i++) sessions.push(await signIn(ms, 'bench@medshare.local', 'Bench-admin-password-1'));
    let nextSession = 0;
    const recipient = g.patients[0]!.id;

    // Login flows: each connection signs in as its own patient, so that codes never cross.
    const patients = g.patients.slice(0, Math.max(1, Math.min(g.patients.length, CONNECTIONS)));
    let nextPatient = 0;

    const scenarios: Scenario[] = [
      {
        name: 'image list (my-images, page 1)',
        requests: [{ method: 'GET', path: '/api/upload/my-images?page=1&limit=10', headers: auth(admin) }],
      },
      {
        name: 'thumbnail',
        requests: [{ method: 'GET', path: `/api/images/${thumbId}/thumbnail`, headers: auth(admin) }],
      },
      {
        name: 'content download (~150 KB)',
        requests: [{ method: 'GET', path: `/api/images/${contentId}/content`, headers: auth(admin) }],
      },
      {
        name: 'upload 100 KB',
        requests: [
          {
            method: 'POST',
            path: '/api/upload/image',
            headers: { ...auth(admin), 'content-type': small.contentType },
            body: small.body,
          },
        ],
      },
      {
        name: 'upload 10 MB',
        connections: Math.min(4, CONNECTIONS),
        requests: [
          {
            method: 'POST',
            path: '/api/upload/image',
            headers: { ...auth(admin), 'content-type': large.contentType },
            body: large.body,
          },
        ],
      },
      {
        name: 'login + second factor',
        connections: patients.length,
        perOp: 2,
        requests: [
          {
            method: 'POST',
            path: '/api/auth/login',
            headers: { 'content-type': 'application/json' },
            setupRequest: (req, context: Record<string, unknown>) => {
              context.patient ??= patients[nextPatient++ % patients.length];
              const p = context.patient as { email: string };
              return { ...req, body: JSON.stringify({ email: p.email, password: 'Bench-patient-password-1' }) };
            },
          },
          {
            method: 'POST',
            path: '/api/auth/confirm',
            headers: { 'content-type': 'application/json' },
            setupRequest: (req, context: Record<string, unknown>) => {
              const p = context.patient as { email: string };
              return { ...req, body: JSON.stringify({ email: p.email, code: latestCode(ms.dataDir, p.email) }) };
            },
          },
        ],
      },
      {
        name: 'message send',
        requests: [
          {
            method: 'POST',
            path: '/api/message/send',
            setupRequest: (req) => ({
              ...req,
              headers: { 'content-type': 'application/json', ...auth(sessions[nextSession++ % sessions.length]!) },
              body: JSON.stringify({ recipientId: recipient, content: 'Your results are ready.' }),
            }),
          },
        ],
      },
    ];
    const only = args.only ? args.only.split(',') : null;
    const pid = ms.child.pid!;
    console.log(`\n${DURATION} s per scenario, ${CONNECTIONS} connections unless noted; autocannon in this process\n`);
    console.log('| scenario | conns | req/s | ops/s | p50 ms | p99 ms | non-2xx | server CPU ms/req | peak RSS MiB |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const s of scenarios) {
      if (only && !only.some((o) => s.name.startsWith(o))) continue;
      const connections = s.connections ?? CONNECTIONS;
      const c0 = cpuMs(pid);
      const result = await autocannon({
        url: `http://127.0.0.1:${PORT}`,
        connections,
        duration: DURATION,
        requests: s.requests,
      });
      const cpu = cpuMs(pid) - c0;
      const total = result.requests.total;
      console.log(
        `| ${s.name} | ${connections} | ${fmt(result.requests.average, 0)} | ${fmt(result.requests.average / (s.perOp ?? 1), 0)} | ${fmt(result.latency.p50)} | ${fmt(result.latency.p99)} | ${result.non2xx} | ${fmt(cpu / Math.max(1, total), 2)} | ${fmt(peakRssMb(pid), 0)} |`,
      );
    }
    // Sanity: the content answer is the file.
    const check = await request(PORT, 'GET', `/api/images/${contentId}/content`, null, auth(admin));
    if (check.status !== 200) throw new Error(`content check: ${check.status}`);
  } finally {
    agent.destroy();
    await ms.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

/**
 * List scaling on PostgreSQL: users list and image lists (and the users search — images have no
 * search endpoint) at 10^3, 10^5 and 10^6 rows. p50/p99 over HTTP (the real server in a child
 * process, node:http keep-alive, sequential requests) for a first page, a deep page and a search,
 * and EXPLAIN (ANALYZE, BUFFERS) of the repositories' own SQL (captured with a Kysely plugin).
 *
 *   npx node bench/list-scaling.ts [--sizes 1000,100000,1000000] [--iterations 100] [--plans]
 *
 * Rows grow in place (bench/generate.ts, bulk SQL): users, images (with their patient shares)
 * and messages all reach each size. Port 8340, database h6_lists. Not part of npm test.
 */
import { LIST_MAX_WINDOW } from '@medshare/contracts';
import { CompiledQuery, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { parseArgs } from 'node:util';
import { openDatabase } from '../server/src/db/db.ts';
import { createImagesRepository } from '../server/src/modules/images/images.repository.ts';
import { type UserListFilter, createUsersRepository } from '../server/src/modules/users/users.repository.ts';
import { generate } from './generate.ts';
import { agent, fmt, machine, percentile, request, startMedShare, withPg } from './support.ts';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,100000,1000000' },
    iterations: { type: 'string', default: '100' },
    plans: { type: 'boolean', default: false },
    port: { type: 'string', default: '8340' },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const ITERATIONS = Number(args.iterations);
const PORT = Number(args.port);
/** Requests per scenario before timing (a fresh server's first requests compile and fill caches). */
const WARM_UP = 20;

async function timeIt(path: string, token: string): Promise<{ p50: number; p99: number; total: number }> {
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < ITERATIONS + WARM_UP; i++) {
    const t0 = performance.now();
    const res = await request(PORT, 'GET', path, null, { authorization: `Bearer ${token}` });
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.toString().slice(0, 200)}`);
    if (i >= WARM_UP) times.push(ms);
    total = (JSON.parse(res.body.toString()) as { pagination?: { totalItems: number } }).pagination?.totalItems ?? 0;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), total };
}

async function main() {
  console.log(`machine: ${machine()}`);
  const ms = await startMedShare({ port: PORT, database: `h6_lists_${PORT}` });
  const handle = await openDatabase({ kind: 'postgres', url: ms.databaseUrl });
  const db = handle.db;
  /** Every query the repositories execute, compiled, in order. */
  let captured: CompiledQuery[] = [];
  const roots = new Map<unknown, RootOperationNode>();
  const capture: KyselyPlugin = {
    transformQuery: (a) => {
      roots.set(a.queryId, a.node);
      return a.node;
    },
    transformResult: async (a) => {
      const node = roots.get(a.queryId);
      if (node) captured.push(db.getExecutor().compileQuery(node, a.queryId));
      return a.result;
    },
  };
  async function explain(label: string, run: (d: typeof db) => Promise<unknown>) {
    captured = [];
    await run(db.withPlugin(capture));
    const out: string[] = [];
    for (const q of captured) {
      const res = await db.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql}`, [...q.parameters]),
      );
      const lines = res.rows.map((r) => r['QUERY PLAN']);
      const exec = lines.find((l) => l.startsWith('Execution Time'))?.replace('Execution Time: ', '');
      out.push(`  [${exec}] ${q.sql.replace(/\s+/g, ' ').slice(0, 160)}`);
      // Key lines: the plan nodes (first line and '->' lines) and the buffers of the top node.
      const key = lines.filter((l, i) => i === 0 || l.trim().startsWith('->') || (i === 1 && l.includes('Buffers')));
      for (const l of args.plans ? lines : key) out.push(`      ${l}`);
    }
    console.log(`\nplan: ${label}\n${out.join('\n')}`);
  }

  const results: Array<{ size: number; name: string; p50: number; p99: number; total: number }> = [];
  let have = 0;
  try {
    let g: Awaited<ReturnType<typeof generate>> | null = null;
    for (const size of SIZES) {
      const t0 = performance.now();
      const made = await generate(
        ms,
        { users: size, images: size, messages: Math.min(size, 10_000) },
        'sql',
        `s${have}`,
      );
      g ??= made;
      have = size;
      console.log(`\n## ${size.toLocaleString('en')} rows each (grown in ${fmt((performance.now() - t0) / 1000)} s)`);
      const admin = made.adminToken;
      const patient = g.patients[0]!;
      const adminId = await withPg(
        ms.databaseUrl,
        async (c) => (await c.query(`SELECT id FROM users WHERE email = 'bench@medshare.local'`)).rows[0].id as string,
      );
      // The middle page, or the last page inside the list window (pages past it answer 400).
      const midUsers = Math.max(1, Math.min(Math.floor(size / 5 / 2), LIST_MAX_WINDOW / 5));
      const midImages = Math.max(1, Math.min(Math.floor(size / 10 / 2), LIST_MAX_WINDOW / 10));
      const scenarios = [
        { name: 'users: first page', path: '/api/users' },
        { name: 'users: deep page (middle or last in window)', path: `/api/users?page=${midUsers}` },
        { name: 'users: search "ayesha kh"', path: '/api/users?search=ayesha%20kh' },
        { name: 'users: search "bulk4242"', path: '/api/users?search=bulk4242' },
        { name: 'images (admin, all): first page', path: '/api/upload/images?page=1&limit=10' },
        {
          name: 'images (admin, all): deep page (middle or last in window)',
          path: `/api/upload/images?page=${midImages}&limit=10`,
        },
        { name: 'images (admin, mine): first page', path: '/api/upload/my-images?page=1&limit=10' },
        {
          name: 'images (patient, shared): first page',
          path: '/api/upload/shared-images?page=1&limit=10',
          token: patient.token,
        },
      ];
      console.log('| request | p50 ms | p99 ms | totalItems |');
      console.log('|---|---:|---:|---:|');
      for (const s of scenarios) {
        const r = await timeIt(s.path, s.token ?? admin);
        results.push({ size, name: s.name, ...r });
        console.log(`| ${s.name} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.total} |`);
      }
      const all: UserListFilter = { roleIds: null, usableOnly: false, pendingOnly: false, search: null };
      await explain('users first page', (d) =>
        createUsersRepository(d).list(all, { key: 'createdAt', dir: 'desc' }, 0, 5),
      );
      await explain('users deep page', (d) =>
        createUsersRepository(d).list(all, { key: 'createdAt', dir: 'desc' }, midUsers * 5, 5),
      );
      await explain('users search "ayesha kh"', (d) =>
        createUsersRepository(d).list({ ...all, search: 'ayesha kh' }, { key: 'createdAt', dir: 'desc' }, 0, 5),
      );
      await explain('images all, first page', (d) => createImagesRepository(d).listAll(10, 0));
      await explain('images all, deep page', (d) => createImagesRepository(d).listAll(10, midImages * 10));
      await explain('images mine (admin), first page', (d) =>
        createImagesRepository(d).listForViewer(adminId, { own: true, shared: true }, 10, 0),
      );
      await explain('images shared (patient), first page', (d) =>
        createImagesRepository(d).listForViewer(patient.id, { own: true, shared: true }, 10, 0),
      );
    }
    if (SIZES.length > 1) {
      const first = SIZES[0]!;
      const last = SIZES[SIZES.length - 1]!;
      console.log(`\n| request | p99 at ${first} | p99 at ${last} | growth |`);
      console.log('|---|---:|---:|---:|');
      for (const r of results.filter((x) => x.size === last)) {
        const base = results.find((x) => x.size === first && x.name === r.name)!;
        console.log(`| ${r.name} | ${fmt(base.p99)} | ${fmt(r.p99)} | ${(r.p99 / base.p99).toFixed(2)}× |`);
      }
    }
  } finally {
    await handle.close();
    agent.destroy();
    await ms.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

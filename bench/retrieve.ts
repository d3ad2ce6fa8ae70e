/**
 * Content reads alone (issue 16): `files` DICOM uploads (the 15 fixtures, fresh UIDs), then rounds of
 * `reads` `GET /api/images/:id/content` by `concurrency` clients, with the server's and PostgreSQL's CPU
 * per read by thread. With `--base DIR` (another checkout of MedShare, e.g. a `git worktree` of the base
 * commit with the same node_modules) a second server runs that code on its own database, and the rounds
 * alternate between the two (base, this tree, base, …): only such pairs compare on a noisy machine.
 *
 *   npx node bench/retrieve.ts [--files 300] [--reads 3000] [--rounds 4] [--concurrency 5] [--base DIR]
 *
 * Every read is authenticated, authorised, decrypted, checked and audited. Round 1 warms each server
 * up and is left out of the medians. Not part of npm test.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type * as Support from './support.ts';

const { values: args } = parseArgs({
  options: {
    files: { type: 'string', default: '300' },
    reads: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '5' },
    base: { type: 'string' },
  },
});
const FILES = Number(args.files);
const READS = Number(args.reads);
const ROUNDS = Number(args.rounds);
const CONCURRENCY = Number(args.concurrency);

type S = typeof Support;
interface Server {
  label: string;
  s: S;
  ms: Awaited<ReturnType<S['startMedShare']>>;
  ids: string[];
  auth: Record<string, string>;
}

const trees: Array<[string, string]> = [
  ...(args.base ? [['base', args.base] as [string, string]] : []),
  ['this tree', join(import.meta.dirname, '..')],
];
const servers: Server[] = [];
const figures = new Map<string, Record<string, number[]>>();
try {
  let port = 8330;
  for (const [label, dir] of trees) {
    const s: S = await import(join(dir, 'bench/support.ts'));
    const ms = await s.startMedShare({ port: port++, database: `h6_retrieve_${servers.length}` });
    const token = await s.signIn(ms, s.ADMIN.email, s.ADMIN.password);
    const auth = { authorization: `Bearer ${token}` };
    const templates = s.imageFixtureNames().map(s.dicomTemplate);
    const ids: string[] = [];
    await s.runPool(FILES, CONCURRENCY, async (i) => {
      const t = templates[i % templates.length]!;
      const b = await s.multipart([
        ['caption', t.name],
        ['file', { name: t.name, type: 'application/dicom', data: s.freshCopy(t) }],
      ]);
      const res = await s.request(ms.port, 'POST', '/api/upload/image', b.body, {
        ...auth,
        'content-type': b.contentType,
      });
      if (res.status !== 201) throw new Error(`${label}: upload answered ${res.status}`);
      ids.push(s.jsonOf<{ data: { id: string } }>(res).data.id);
    });
    servers.push({ label, s, ms, ids, auth });
  }
  const { s: first } = servers[0]!;
  console.log(`machine: ${first.machine()}`);
  console.log(`${FILES} files, ${READS} reads a round by ${CONCURRENCY} clients, ${ROUNDS} rounds`);
  // The deferred thumbnails of the uploads are made before the reads are measured.
  for (const { s, ms } of servers)
    for (;;) {
      const pending = await s.withPg(ms.databaseUrl, async (c) =>
        Number((await c.query(`SELECT count(*) AS n FROM images WHERE thumbnail_status = 'pending'`)).rows[0].n),
      );
      if (pending === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const { label, s, ms, ids, auth } of servers) {
      let got = 0;
      const p = await s.phase(
        ms.child.pid!,
        READS,
        () => got,
        () =>
          s.runPool(READS, CONCURRENCY, async (i) => {
            const res = await s.request(ms.port, 'GET', `/api/images/${ids[i % ids.length]}/content`, null, auth);
            if (res.status !== 200) throw new Error(`${label}: read answered ${res.status}`);
            got += res.body.length;
          }),
      );
      const t = p.threads;
      const row: Record<string, number> = {
        'reads/s': p.files / p.seconds,
        server: p.cpuMs / p.files,
        main: (t.main ?? 0) / p.files,
        'gc helpers': (t['v8 helpers (gc)'] ?? 0) / p.files,
        'thread pool': (t['thread pool'] ?? 0) / p.files,
        postgresql: (t['(postgresql)'] ?? 0) / p.files,
      };
      if (round > 1) {
        const mine = figures.get(label) ?? {};
        for (const [k, v] of Object.entries(row)) (mine[k] ??= []).push(v);
        figures.set(label, mine);
      }
      console.log(`round ${round} ${label.padEnd(9)} ${format(row)}`);
    }
  }
  console.log('\nmedians of rounds 2.. (CPU in ms per read):');
  for (const [label, mine] of figures)
    console.log(
      `${label.padEnd(9)} ${format(Object.fromEntries(Object.entries(mine).map(([k, v]) => [k, first.median(v)])))}`,
    );
} finally {
  for (const { ms } of servers) await ms.stop();
  for (const { s } of servers) s.agent.destroy();
}

function format(row: Record<string, number>): string {
  return Object.entries(row)
    .map(([k, v]) => `${k} ${v.toFixed(k === 'reads/s' ? 0 : 3)}`)
    .join(', ');
}

/**
 * Content reads alone (issue 16): `files` DICOM uploads (the 15 fixtures, fresh UIDs), then rounds of
 * `reads` `GET /api/images/:id/content` by `concurrency` clients, with the server's and PostgreSQL's CPU
 * per read by thread. With `--base DIR` (another checkout of MedShare, e.g. a `git worktree` of the base
 * commit with the same node_modules) a second server runs that code on its own database, and the rounds
 * alternate between the two (base, this tree, base, …): only such pairs compare on a noisy machine
 * (bench/alternating.ts).
 *
 *   npx node bench/retrieve.ts [--files 300] [--reads 3000] [--rounds 4] [--concurrency 5] [--base DIR]
 *
 * Every read is authenticated, authorised, decrypted, checked and audited. Round 1 warms each server
 * up and is left out of the medians. Not part of npm test.
 */
import { parseArgs } from 'node:util';
import { alternate, startTrees, stopTrees, thumbnailsDone, timedReads, type Tree } from './alternating.ts';

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

let trees: Tree<{ ids: string[]; auth: Record<string, string> }>[] = [];
try {
  trees = await startTrees({
    base: args.base,
    port: 8330,
    database: 'h6_retrieve',
    prepare: async (s, ms, label) => {
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
      return { ids, auth };
    },
  });
  console.log(`machine: ${trees[0]!.s.machine()}`);
  console.log(`${FILES} files, ${READS} reads a round by ${CONCURRENCY} clients, ${ROUNDS} rounds`);
  await thumbnailsDone(trees);
  await alternate(
    trees,
    ROUNDS,
    async (tree) => {
      const { ids, auth } = tree.data;
      const p = await timedReads(tree, READS, CONCURRENCY, (i) => `/api/images/${ids[i % ids.length]}/content`, auth);
      const t = p.threads;
      return {
        'reads/s': p.files / p.seconds,
        server: p.cpuMs / p.files,
        main: (t.main ?? 0) / p.files,
        'gc helpers': (t['v8 helpers (gc)'] ?? 0) / p.files,
        'thread pool': (t['thread pool'] ?? 0) / p.files,
        postgresql: (t['(postgresql)'] ?? 0) / p.files,
      };
    },
    'read',
  );
} finally {
  await stopTrees(trees);
}

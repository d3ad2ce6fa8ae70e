/**
 * WADO-RS frame reads alone, as the stack viewer pages through a series (issue 16): a CT study of
 * `instances` instances stored over STOW-RS (support.ts ctStudy: 128² and 512² native, 512² JPEG-LS,
 * a 2-frame JPEG lossless), then rounds of `reads` `GET …/instances/{sop}/frames/1` (Accept as
 * Cornerstone's WADO-RS loader sends it: octet-stream, any syntax) by `concurrency` clients, with the
 * server's and PostgreSQL's CPU per read by thread. With `--base DIR` (another checkout of MedShare,
 * e.g. a `git worktree` of the base commit with the same node_modules) a second server runs that code
 * on its own database, and the rounds alternate between the two (base, this tree, base, …;
 * bench/alternating.ts).
 *
 *   node bench/frames.ts [--instances 200] [--reads 2000] [--rounds 4] [--concurrency 3] [--base DIR]
 *
 * Every read is authenticated, authorised, audited, and its frame cut from the decrypted file by a
 * DICOM worker. Round 1 warms each server up and is left out of the medians. Not part of npm test.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { alternate, startTrees, stopTrees, thumbnailsDone, timedReads, type Tree } from './alternating.ts';

const { values: args } = parseArgs({
  options: {
    instances: { type: 'string', default: '200' },
    reads: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '3' },
    base: { type: 'string' },
  },
});
const INSTANCES = Number(args.instances);
const READS = Number(args.reads);
const ROUNDS = Number(args.rounds);
const CONCURRENCY = Number(args.concurrency);
const ACCEPT = 'multipart/related; type="application/octet-stream"; transfer-syntax=*';

let trees: Tree<{ paths: string[]; auth: Record<string, string> }>[] = [];
try {
  trees = await startTrees({
    base: args.base,
    port: 8340,
    database: 'h6_frames',
    prepare: async (s, ms, label) => {
      const { provider, patient } = await s.providerAndPatient(ms);
      const auth = { authorization: `Bearer ${provider.token}` };
      const study = s.ctStudy(INSTANCES, 4);
      // One STOW-RS request per 50 instances.
      for (let i = 0; i < study.instances.length; i += 50) {
        const boundary = `bench-${randomBytes(12).toString('hex')}`;
        const pieces: Buffer[] = [];
        for (const inst of study.instances.slice(i, i + 50))
          pieces.push(
            Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`),
            inst.data,
            Buffer.from('\r\n'),
          );
        pieces.push(Buffer.from(`--${boundary}--\r\n`));
        const res = await s.request(
          ms.port,
          'POST',
          `/api/dicomweb/studies?patientId=${patient.id}`,
          Buffer.concat(pieces),
          { ...auth, 'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}` },
        );
        if (res.status !== 200) throw new Error(`${label}: STOW-RS answered ${res.status}`);
      }
      const paths = study.instances.map(
        (inst) =>
          `/api/dicomweb/studies/${study.studyUid}/series/${study.series[inst.series - 1]!.uid}/instances/${inst.sop}/frames/1`,
      );
      return { paths, auth };
    },
  });
  console.log(`machine: ${trees[0]!.s.machine()}`);
  console.log(`${INSTANCES} instances, ${READS} frame reads a round by ${CONCURRENCY} clients, ${ROUNDS} rounds`);
  await thumbnailsDone(trees);
  await alternate(
    trees,
    ROUNDS,
    async (tree) => {
      const { paths, auth } = tree.data;
      const p = await timedReads(tree, READS, CONCURRENCY, (i) => paths[i % paths.length]!, {
        ...auth,
        accept: ACCEPT,
      });
      const t = p.threads;
      return {
        'reads/s': p.files / p.seconds,
        'MB/s': p.bytes / p.seconds / 1e6,
        server: p.cpuMs / p.files,
        main: (t.main ?? 0) / p.files,
        workers: (t.workers ?? 0) / p.files,
        'gc helpers': (t['v8 helpers (gc)'] ?? 0) / p.files,
        postgresql: (t['(postgresql)'] ?? 0) / p.files,
        'peak RSS MiB': tree.s.peakRssMb(tree.ms.child.pid!),
      };
    },
    'read',
  );
} finally {
  await stopTrees(trees);
}

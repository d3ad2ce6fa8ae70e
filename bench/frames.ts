/**
 * WADO-RS frame reads alone, as the stack viewer pages through a series (issue 16): a CT study of
 * `instances` instances stored over STOW-RS (support.ts ctStudy: 128² and 512² native, 512² JPEG-LS,
 * a 2-frame JPEG lossless), then rounds of `reads` `GET …/instances/{sop}/frames/1` (Accept as
 * Cornerstone's WADO-RS loader sends it: octet-stream, any syntax) by `concurrency` clients, with the
 * server's and PostgreSQL's CPU per read by thread. With `--base DIR` (another checkout of MedShare,
 * e.g. a `git worktree` of the base commit with the same node_modules) a second server runs that code
 * on its own database, and the rounds alternate between the two (base, this tree, base, …).
 *
 *   node bench/frames.ts [--instances 200] [--reads 2000] [--rounds 4] [--concurrency 3] [--base DIR]
 *
 * Every read is authenticated, authorised, audited, and its frame cut from the decrypted file by a
 * DICOM worker. Round 1 warms each server up and is left out of the medians. Not part of npm test.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type * as Support from './support.ts';

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

type S = typeof Support;
interface Server {
  label: string;
  s: S;
  ms: Awaited<ReturnType<S['startMedShare']>>;
  paths: string[];
  auth: Record<string, string>;
}

const trees: Array<[string, string]> = [
  ...(args.base ? [['base', args.base] as [string, string]] : []),
  ['this tree', join(import.meta.dirname, '..')],
];
const servers: Server[] = [];
const figures = new Map<string, Record<string, number[]>>();
try {
  let port = 8340;
  for (const [label, dir] of trees) {
    const s: S = await import(join(dir, 'bench/support.ts'));
    const ms = await s.startMedShare({ port: port++, database: `h6_frames_${servers.length}` });
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
        {
          ...auth,
          'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}`,
        },
      );
      if (res.status !== 200) throw new Error(`${label}: STOW-RS answered ${res.status}`);
    }
    const paths = study.instances.map(
      (inst) =>
        `/api/dicomweb/studies/${study.studyUid}/series/${study.series[inst.series - 1]!.uid}/instances/${inst.sop}/frames/1`,
    );
    servers.push({ label, s, ms, paths, auth });
  }
  const { s: first } = servers[0]!;
  console.log(`machine: ${first.machine()}`);
  console.log(`${INSTANCES} instances, ${READS} frame reads a round by ${CONCURRENCY} clients, ${ROUNDS} rounds`);
  // The deferred thumbnails of the study are made before the reads are measured.
  for (const { s, ms } of servers)
    for (;;) {
      const pending = await s.withPg(ms.databaseUrl, async (c) =>
        Number((await c.query(`SELECT count(*) AS n FROM images WHERE thumbnail_status = 'pending'`)).rows[0].n),
      );
      if (pending === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const { label, s, ms, paths, auth } of servers) {
      let got = 0;
      const p = await s.phase(
        ms.child.pid!,
        READS,
        () => got,
        () =>
          s.runPool(READS, CONCURRENCY, async (i) => {
            const res = await s.request(ms.port, 'GET', paths[i % paths.length]!, null, { ...auth, accept: ACCEPT });
            if (res.status !== 200) throw new Error(`${label}: frame read answered ${res.status}`);
            got += res.body.length;
          }),
      );
      const t = p.threads;
      const row: Record<string, number> = {
        'reads/s': p.files / p.seconds,
        'MB/s': p.bytes / p.seconds / 1e6,
        server: p.cpuMs / p.files,
        main: (t.main ?? 0) / p.files,
        workers: (t.workers ?? 0) / p.files,
        'gc helpers': (t['v8 helpers (gc)'] ?? 0) / p.files,
        postgresql: (t['(postgresql)'] ?? 0) / p.files,
      };
      if (round > 1) {
        const mine = figures.get(label) ?? {};
        for (const [k, v] of Object.entries(row)) (mine[k] ??= []).push(v);
        figures.set(label, mine);
      }
      console.log(
        `round ${round} ${label.padEnd(9)} ${format(row)}; peak RSS ${s.peakRssMb(ms.child.pid!).toFixed(0)} MiB`,
      );
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
    .map(([k, v]) => `${k} ${v.toFixed(k === 'reads/s' ? 0 : k === 'MB/s' ? 1 : 3)}`)
    .join(', ');
}

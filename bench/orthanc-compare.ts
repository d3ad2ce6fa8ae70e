/**
 * DICOM ingest and retrieval: MedShare (`POST /api/upload/image`, encryption on, PostgreSQL) against
 * Debian's Orthanc 1.10.1 (`POST /instances`, PostgreSQL index via orthanc-postgresql), same files,
 * same client (node:http keep-alive), same concurrency, interleaved rounds, fresh storage and
 * database for each server in every round.
 *
 *   npx node bench/orthanc-compare.ts [--instances 1000] [--concurrency 5] [--rounds 3] [--index postgres|sqlite]
 *
 * Needs `apt-get install -y orthanc orthanc-postgresql`. Orthanc is started here on loopback with
 * its own config in a temp dir (never the system service). The ingest set: the valid image files
 * of server/test/fixtures/dicom, copied round-robin with fresh Study/Series/SOP Instance UIDs
 * (byte-patched in place, same length, so no lengths change; deflated data sets are re-deflated).
 * Ports: MedShare 8310, Orthanc HTTP 8311. Not part of npm test.
 */
import { parseArgs } from 'node:util';
import {
  ADMIN,
  type Phase,
  SKIPPED,
  agent,
  dicomTemplate,
  fmt,
  freshCopy,
  imageFixtureNames,
  jsonOf,
  machine,
  median,
  multipart,
  peakRssMb,
  phase,
  request,
  runPool,
  signIn,
  startMedShare,
  startOrthanc,
  withPg,
} from './support.ts';

const { values: args } = parseArgs({
  options: {
    instances: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    index: { type: 'string', default: 'postgres' },
    'medshare-port': { type: 'string', default: '8310' },
    'orthanc-port': { type: 'string', default: '8311' },
    /** 'medshare' or 'orthanc': run one side only (profiling). */
    only: { type: 'string', default: '' },
    /**
     * Instances each server ingests (fresh UIDs, same mix, same concurrency) after it starts and before
     * the clock starts, so that both are measured warm (JIT-compiled, caches and connections filled).
     */
    warmup: { type: 'string', default: '0' },
    /** Ingest only: no retrieval, no waiting for deferred thumbnails (profiling). */
    'ingest-only': { type: 'boolean', default: false },
  },
});
const INSTANCES = Number(args.instances);
const CONCURRENCY = Number(args.concurrency);
const ROUNDS = Number(args.rounds);
const MS_PORT = Number(args['medshare-port']);
const OR_PORT = Number(args['orthanc-port']);
const ORTHANC_PG = args.index === 'postgres';
const WARMUP = Number(args.warmup);

// ---------------------------------------------------------------- the ingest set

/** "Valid images only" (support.ts imageFixtureNames). */
const templates = imageFixtureNames().map(dicomTemplate);

function ingestSet(size = INSTANCES): Array<{ name: string; data: Buffer }> {
  return Array.from({ length: size }, (_, i) => {
    const t = templates[i % templates.length]!;
    return { name: t.name, data: freshCopy(t) };
  });
}

// ---------------------------------------------------------------- measuring

interface Round {
  ingest: Phase;
  /** MedShare only: making the thumbnails deferred during the ingest, before retrieval starts. */
  thumbnails?: Phase;
  retrieve: Phase;
  rssMb: number;
  refused: Record<string, number>;
}

const bodiesOf = (set: Array<{ name: string; data: Buffer }>) =>
  Promise.all(
    set.map((f) =>
      multipart([
        ['caption', f.name],
        ['file', { name: f.name, type: 'application/dicom', data: f.data }],
      ]),
    ),
  );

async function medshareRound(set: Array<{ name: string; data: Buffer }>, round: number): Promise<Round> {
  const ms = await startMedShare({ port: MS_PORT, database: `h6_ms_orthanc_${round}` });
  try {
    const token = await signIn(ms, ADMIN.email, ADMIN.password);
    const auth = { authorization: `Bearer ${token}` };
    // Bodies are built before the clock starts, as Orthanc's are plain file bytes.
    const bodies = await bodiesOf(set);
    const upload = async (body: { body: Buffer; contentType: string }) =>
      request(MS_PORT, 'POST', '/api/upload/image', body.body, { ...auth, 'content-type': body.contentType });
    const warm = await bodiesOf(ingestSet(WARMUP));
    await runPool(warm.length, CONCURRENCY, async (i) => {
      const res = await upload(warm[i]!);
      if (res.status !== 201) throw new Error(`MedShare warm-up upload: ${res.status}`);
    });
    const pending = () =>
      withPg(ms.databaseUrl, async (c) =>
        Number((await c.query(`SELECT count(*) AS n FROM images WHERE thumbnail_status = 'pending'`)).rows[0].n),
      );
    // The warm-up's thumbnails are made before the clock starts.
    while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 100));
    const ids: string[] = new Array(set.length);
    const refused: Record<string, number> = {};
    const pid = ms.child.pid!;
    const ingest = await phase(
      pid,
      set.length,
      () => set.reduce((s, f) => s + f.data.length, 0),
      () =>
        runPool(set.length, CONCURRENCY, async (i) => {
          const res = await upload(bodies[i]!);
          if (res.status !== 201) {
            const key = `${set[i]!.name}: ${res.status}`;
            refused[key] = (refused[key] ?? 0) + 1;
            return;
          }
          ids[i] = jsonOf<{ data: { id: string } }>(res).data.id;
        }),
    );
    if (args['ingest-only']) return { ingest, retrieve: SKIPPED, rssMb: peakRssMb(pid), refused };
    // Thumbnails yield to uploads in flight; let the backlog finish so that it is not billed to retrieval.
    const backlog = await pending();
    const thumbnails = await phase(
      pid,
      backlog,
      () => 0,
      async () => {
        while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 100));
      },
    );
    let got = 0;
    const ok = ids.filter(Boolean);
    const retrieve = await phase(
      pid,
      ok.length,
      () => got,
      () =>
        runPool(ok.length, CONCURRENCY, async (i) => {
          const res = await request(MS_PORT, 'GET', `/api/images/${ok[i]}/content`, null, auth);
          if (res.status !== 200) throw new Error(`MedShare retrieve: ${res.status}`);
          got += res.body.length;
        }),
    );
    return { ingest, thumbnails, retrieve, rssMb: peakRssMb(pid), refused };
  } finally {
    await ms.stop();
  }
}

async function orthancRound(set: Array<{ name: string; data: Buffer }>): Promise<Round> {
  const or = await startOrthanc({ port: OR_PORT, database: ORTHANC_PG ? 'h6_orthanc' : null });
  try {
    const pid = or.child.pid!;
    const upload = (data: Buffer) =>
      request(OR_PORT, 'POST', '/instances', data, { 'content-type': 'application/dicom' });
    const warm = ingestSet(WARMUP);
    await runPool(warm.length, CONCURRENCY, async (i) => {
      const res = await upload(warm[i]!.data);
      if (res.status !== 200) throw new Error(`Orthanc warm-up upload: ${res.status}`);
    });
    const ids: string[] = new Array(set.length);
    const refused: Record<string, number> = {};
    const ingest = await phase(
      pid,
      set.length,
      () => set.reduce((s, f) => s + f.data.length, 0),
      () =>
        runPool(set.length, CONCURRENCY, async (i) => {
          const res = await upload(set[i]!.data);
          const answer = res.status === 200 ? jsonOf<{ ID: string; Status: string }>(res) : null;
          if (!answer || answer.Status !== 'Success') {
            const key = `${set[i]!.name}: ${res.status} ${answer?.Status ?? ''}`;
            refused[key] = (refused[key] ?? 0) + 1;
            return;
          }
          ids[i] = answer.ID;
        }),
    );
    if (args['ingest-only']) return { ingest, retrieve: SKIPPED, rssMb: peakRssMb(pid), refused };
    let got = 0;
    const ok = ids.filter(Boolean);
    const retrieve = await phase(
      pid,
      ok.length,
      () => got,
      () =>
        runPool(ok.length, CONCURRENCY, async (i) => {
          const res = await request(OR_PORT, 'GET', `/instances/${ok[i]}/file`);
          if (res.status !== 200) throw new Error(`Orthanc retrieve: ${res.status}`);
          got += res.body.length;
        }),
    );
    return { ingest, retrieve, rssMb: peakRssMb(pid), refused };
  } finally {
    await or.stop();
  }
}

const rate = (p: Phase) => p.files / p.seconds;
const mbps = (p: Phase) => p.bytes / 1e6 / p.seconds;
const cpuPer = (p: Phase) => p.cpuMs / p.files;

function line(who: string, r: Round) {
  return (
    `${who.padEnd(9)} ingest ${fmt(rate(r.ingest), 0).padStart(5)} files/s ${fmt(mbps(r.ingest)).padStart(6)} MB/s ` +
    `cpu ${fmt(cpuPer(r.ingest), 2)} ms/file | retrieve ${fmt(rate(r.retrieve), 0).padStart(5)} files/s ` +
    `${fmt(mbps(r.retrieve)).padStart(6)} MB/s cpu ${fmt(cpuPer(r.retrieve), 2)} ms/file | ` +
    (r.thumbnails
      ? `deferred thumbnails ${r.thumbnails.files} in ${fmt(r.thumbnails.seconds, 1)} s (cpu ${fmt(r.thumbnails.cpuMs / Math.max(1, r.thumbnails.files), 1)} ms each) | `
      : '') +
    `peak RSS ${fmt(r.rssMb, 0)} MiB` +
    (Object.keys(r.refused).length ? ` | refused ${JSON.stringify(r.refused)}` : '') +
    (['ingest', 'retrieve', 'thumbnails'] as const)
      .flatMap((k) => {
        const p = r[k];
        return p && p.files > 0 ? [[k, p] as const] : [];
      })
      .map(
        ([k, p]) =>
          `\n          ${k} cpu by thread (ms/file; PostgreSQL's processes in brackets): ${Object.entries(p.threads)
            .sort(([, a], [, b]) => b - a)
            .map(([name, v]) => `${name} ${fmt(v / p.files, 2)}`)
            .join(', ')}`,
      )
      .join('')
  );
}

async function main() {
  console.log(`machine: ${machine()}`);
  console.log(
    `set: ${INSTANCES} instances from ${templates.length} fixtures (${templates.map((t) => t.name).join(', ')}), concurrency ${CONCURRENCY}, ${ROUNDS} rounds, Orthanc index ${ORTHANC_PG ? 'PostgreSQL' : 'SQLite'}`,
  );
  const ours: Round[] = [];
  const theirs: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const set = ingestSet();
    const mean = set.reduce((s, f) => s + f.data.length, 0) / set.length;
    if (round === 0) console.log(`mean instance size ${fmt(mean / 1000, 0)} KB`);
    // Alternate which goes first, so that neither always gets the quieter moment.
    const order = round % 2 === 0 ? (['ours', 'orthanc'] as const) : (['orthanc', 'ours'] as const);
    for (const who of order.filter((w) => !args.only || (args.only === 'orthanc') === (w === 'orthanc'))) {
      const r = who === 'ours' ? await medshareRound(set, round) : await orthancRound(set);
      (who === 'ours' ? ours : theirs).push(r);
      console.log(`round ${round + 1} ${line(who === 'ours' ? 'MedShare' : 'Orthanc', r)}`);
    }
  }
  const m = (rs: Round[], f: (r: Round) => number) => median(rs.map(f));
  console.log('\nmedians:');
  for (const [who, rs] of [
    ['MedShare', ours],
    ['Orthanc', theirs],
  ] as const) {
    console.log(
      `${who.padEnd(9)} ingest ${fmt(
        m(rs, (r) => rate(r.ingest)),
        0,
      )} files/s ${fmt(m(rs, (r) => mbps(r.ingest)))} MB/s, ${fmt(
        m(rs, (r) => cpuPer(r.ingest)),
        2,
      )} ms CPU/file; ` +
        `retrieve ${fmt(
          m(rs, (r) => rate(r.retrieve)),
          0,
        )} files/s ${fmt(m(rs, (r) => mbps(r.retrieve)))} MB/s, ${fmt(
          m(rs, (r) => cpuPer(r.retrieve)),
          2,
        )} ms CPU/file; peak RSS ${fmt(
          m(rs, (r) => r.rssMb),
          0,
        )} MiB`,
    );
  }
  if (args.only) return agent.destroy();
  // Ratios per round (interleaved pairs), then their median.
  const ingestRatio = median(ours.map((o, i) => rate(o.ingest) / rate(theirs[i]!.ingest)));
  const retrieveRatio = median(ours.map((o, i) => rate(o.retrieve) / rate(theirs[i]!.retrieve)));
  console.log(
    `ratio ours/Orthanc (median of per-round ratios): ingest ${ingestRatio.toFixed(2)}, retrieve ${retrieveRatio.toFixed(2)}`,
  );
  console.log(`acceptance (ingest ≥ Orthanc): ${ingestRatio >= 1 ? 'met' : 'NOT met'}`);
  agent.destroy();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

/**
 * A whole CT study through DICOMweb: STOW-RS ingest and WADO-RS study retrieve, MedShare
 * (`POST /api/dicomweb/studies?patientId=…` as a provider, encryption on, PostgreSQL) against
 * Debian's Orthanc 1.10.1 with its DICOMweb plugin 1.7 (`POST /dicom-web/studies`, PostgreSQL index
 * via orthanc-postgresql), the same study, the same client (node:http keep-alive), the same
 * concurrency, interleaved rounds, fresh storage and database for each server in every round
 * (issue 15 › Speed).
 *
 *   npm run bench:study -- [--instances 500] [--series 4] [--batch 50] [--concurrency 3] [--rounds 3]
 *                          [--retrieves 1] [--warmup 0] [--index postgres|sqlite] [--only medshare|orthanc]
 *
 * Needs `apt-get install -y orthanc orthanc-dicomweb orthanc-postgresql`; Orthanc is started here
 * on loopback with its own config in a temp dir (never the system service). The study (support.ts
 * ctStudy, made afresh each round, the same bytes for both servers): `--series` series, each made of
 * one CT fixture of server/test/fixtures/dicom in turn (128² explicit LE, 512² implicit LE, 512²
 * JPEG-LS lossless, 2-frame enhanced CT JPEG lossless), copies with fresh UIDs, one Study Instance
 * UID, one Series Instance UID and Series Number per series, Instance Numbers 1…n.
 *
 * Ingest: the instances in series order, `--batch` per STOW-RS request (multipart/related;
 * type="application/dicom"), `--concurrency` requests in flight; every answer must list every
 * instance as stored. MedShare's deferred thumbnails are then awaited and shown apart (Orthanc makes
 * none), so that they are billed neither to the ingest nor to the retrieve. Retrieve: `--retrieves`
 * GETs of the whole study (`Accept: multipart/related; type="application/dicom"; transfer-syntax=*`),
 * each checked for its instance count and payload bytes; after the clock, each instance received is
 * checked byte-identical to the one sent.
 *
 * CPU = the server process's utime+stime from /proc (all threads), PostgreSQL's = every postgres
 * process on the machine over the same phase; RSS = the server's VmHWM. Ratios are MedShare ÷
 * Orthanc per round (interleaved pairs), then their median. Ports: MedShare 8320, Orthanc 8321.
 * Not part of npm test.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type Answer,
  type BenchStudy,
  ORTHANC_PLUGINS,
  type Phase,
  agent,
  ctStudy,
  fmt,
  jsonOf,
  machine,
  median,
  peakRssMb,
  phase,
  providerAndPatient,
  request,
  runPool,
  startMedShare,
  startOrthanc,
  withPg,
} from './support.ts';

const { values: args } = parseArgs({
  options: {
    instances: { type: 'string', default: '500' },
    series: { type: 'string', default: '4' },
    batch: { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    retrieves: { type: 'string', default: '1' },
    /** Instances of another study each server stores before the clock starts (JIT, caches, connections). */
    warmup: { type: 'string', default: '0' },
    index: { type: 'string', default: 'postgres' },
    'medshare-port': { type: 'string', default: '8320' },
    'orthanc-port': { type: 'string', default: '8321' },
    /** 'medshare' or 'orthanc': run one side only (profiling). */
    only: { type: 'string', default: '' },
  },
});
const INSTANCES = Number(args.instances);
const SERIES = Number(args.series);
const BATCH = Number(args.batch);
const CONCURRENCY = Number(args.concurrency);
const ROUNDS = Number(args.rounds);
const RETRIEVES = Number(args.retrieves);
const WARMUP = Number(args.warmup);
const MS_PORT = Number(args['medshare-port']);
const OR_PORT = Number(args['orthanc-port']);
const ORTHANC_PG = args.index === 'postgres';
for (const [k, v] of Object.entries({ INSTANCES, SERIES, BATCH, CONCURRENCY, ROUNDS, RETRIEVES }))
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${k.toLowerCase()} must be a positive integer`);
if (SERIES > INSTANCES) throw new Error('--series must not exceed --instances');

const RETRIEVE_ACCEPT = 'multipart/related; type="application/dicom"; transfer-syntax=*';

// ---------------------------------------------------------------- DICOMweb on the wire

/** STOW-RS bodies: the study's instances in order, `BATCH` per body. */
function stowBodies(study: BenchStudy): Array<{ body: Buffer; contentType: string; count: number }> {
  const out = [];
  for (let i = 0; i < study.instances.length; i += BATCH) {
    const boundary = `bench-${randomBytes(12).toString('hex')}`;
    const slice = study.instances.slice(i, i + BATCH);
    const pieces: Buffer[] = [];
    for (const inst of slice)
      pieces.push(
        Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`),
        inst.data,
        Buffer.from('\r\n'),
      );
    pieces.push(Buffer.from(`--${boundary}--\r\n`));
    out.push({
      body: Buffer.concat(pieces),
      contentType: `multipart/related; type="application/dicom"; boundary=${boundary}`,
      count: slice.length,
    });
  }
  return out;
}

type DicomJson = Record<string, { Value?: unknown[] }>;

/** What a STOW-RS answer says: instances listed as stored, and failures by reason. */
function stowOutcome(res: Answer): { stored: number; failed: Record<string, number> } {
  if (res.status !== 200 && res.status !== 202 && res.status !== 409)
    return { stored: 0, failed: { [`HTTP ${res.status}: ${res.body.toString().slice(0, 200)}`]: 1 } };
  const ds = jsonOf<DicomJson>(res);
  const failed: Record<string, number> = {};
  for (const item of (ds['00081198']?.Value ?? []) as DicomJson[]) {
    const reason = `0x${Number(item['00081197']?.Value?.[0]).toString(16).toUpperCase()}`;
    failed[reason] = (failed[reason] ?? 0) + 1;
  }
  return { stored: ds['00081199']?.Value?.length ?? 0, failed };
}

/** The bodies of a multipart answer's parts (PS3.18 §8.6.1.2: one instance each). */
function partsOf(res: Answer): Buffer[] {
  const boundary = /boundary="?([^";]+)"?/i.exec(res.headers['content-type'] ?? '')?.[1];
  if (!boundary) throw new Error(`no boundary in ${res.headers['content-type']}`);
  const open = Buffer.from(`--${boundary}`);
  const between = Buffer.from(`\r\n--${boundary}`);
  const parts: Buffer[] = [];
  let at = res.body.indexOf(open);
  while (at !== -1 && !(res.body[at + open.length] === 0x2d && res.body[at + open.length + 1] === 0x2d)) {
    const headEnd = res.body.indexOf('\r\n\r\n', at);
    const next = res.body.indexOf(between, headEnd + 4);
    if (headEnd === -1 || next === -1) throw new Error('a multipart answer cut short');
    parts.push(res.body.subarray(headEnd + 4, next));
    at = next + 2;
  }
  return parts;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// ---------------------------------------------------------------- one server, one round

interface Round {
  ingest: Phase;
  /** MedShare only: the thumbnails deferred during the ingest, made before retrieval starts. */
  thumbnails?: Phase;
  retrieve: Phase;
  rssMb: number;
  stored: number;
  failed: Record<string, number>;
  /** Instances of the last retrieve that are byte-identical to one sent. */
  identical: number;
}

interface Side {
  name: string;
  pid: number;
  stowPath: string;
  retrievePath: (study: string) => string;
  headers: Record<string, string>;
  /** Anything the server still does for the ingest after answering (MedShare: thumbnails). */
  backlog?: () => Promise<number>;
}

async function stowAll(side: Side, port: number, study: BenchStudy, tally: Round) {
  const bodies = stowBodies(study);
  await runPool(bodies.length, CONCURRENCY, async (i) => {
    const b = bodies[i]!;
    const res = await request(port, 'POST', side.stowPath, b.body, {
      ...side.headers,
      'content-type': b.contentType,
      accept: 'application/dicom+json',
    });
    const outcome = stowOutcome(res);
    tally.stored += outcome.stored;
    for (const [k, n] of Object.entries(outcome.failed)) tally.failed[k] = (tally.failed[k] ?? 0) + n;
  });
}

async function drain(side: Side) {
  if (!side.backlog) return;
  while ((await side.backlog()) > 0) await new Promise((r) => setTimeout(r, 100));
}

async function measure(side: Side, port: number, study: BenchStudy): Promise<Round> {
  if (WARMUP > 0) {
    const warm = { stored: 0, failed: {} } as Round;
    await stowAll(side, port, ctStudy(WARMUP, Math.min(SERIES, WARMUP)), warm);
    if (warm.stored !== WARMUP) throw new Error(`${side.name} warm-up: ${JSON.stringify(warm.failed)}`);
    await drain(side);
  }
  const r: Round = {
    ingest: undefined as unknown as Phase,
    retrieve: undefined as unknown as Phase,
    rssMb: 0,
    stored: 0,
    failed: {},
    identical: 0,
  };
  r.ingest = await phase(
    side.pid,
    study.instances.length,
    () => study.bytes,
    () => stowAll(side, port, study, r),
  );
  if (r.stored !== study.instances.length)
    throw new Error(`${side.name} stored ${r.stored} of ${study.instances.length}: ${JSON.stringify(r.failed)}`);
  if (side.backlog) {
    const pending = await side.backlog();
    r.thumbnails = await phase(
      side.pid,
      pending,
      () => 0,
      () => drain(side),
    );
  }
  let received = 0;
  let last: Buffer[] = [];
  r.retrieve = await phase(
    side.pid,
    study.instances.length * RETRIEVES,
    () => received,
    () =>
      runPool(RETRIEVES, Math.min(CONCURRENCY, RETRIEVES), async () => {
        const res = await request(port, 'GET', side.retrievePath(study.studyUid), null, {
          ...side.headers,
          accept: RETRIEVE_ACCEPT,
        });
        if (res.status !== 200) throw new Error(`${side.name} retrieve: ${res.status} ${res.body.toString()}`);
        const parts = partsOf(res);
        const bytes = parts.reduce((s, p) => s + p.length, 0);
        if (parts.length !== study.instances.length || bytes !== study.bytes)
          throw new Error(
            `${side.name} retrieve: ${parts.length} instances, ${bytes} bytes; sent ${study.instances.length}, ${study.bytes}`,
          );
        received += bytes;
        last = parts;
      }),
  );
  const sent = new Set(study.instances.map((i) => sha(i.data)));
  r.identical = last.filter((p) => sent.has(sha(p))).length;
  r.rssMb = peakRssMb(side.pid);
  return r;
}

async function medshareRound(study: BenchStudy, round: number): Promise<Round> {
  const ms = await startMedShare({ port: MS_PORT, database: `h6_ms_study_${round}` });
  try {
    const { provider, patient } = await providerAndPatient(ms);
    return await measure(
      {
        name: 'MedShare',
        pid: ms.child.pid!,
        stowPath: `/api/dicomweb/studies?patientId=${patient.id}`,
        retrievePath: (uid) => `/api/dicomweb/studies/${uid}`,
        headers: { authorization: `Bearer ${provider.token}` },
        backlog: () =>
          withPg(ms.databaseUrl, async (c) =>
            Number((await c.query(`SELECT count(*) AS n FROM images WHERE thumbnail_status = 'pending'`)).rows[0].n),
          ),
      },
      MS_PORT,
      study,
    );
  } finally {
    await ms.stop();
  }
}

async function orthancRound(study: BenchStudy): Promise<Round> {
  const or = await startOrthanc({
    port: OR_PORT,
    database: ORTHANC_PG ? 'h6_orthanc_study' : null,
    plugins: [join(ORTHANC_PLUGINS, 'libOrthancDicomWeb.so')],
    config: { DicomWeb: { Enable: true, Root: '/dicom-web/', EnableWado: false } },
  });
  try {
    return await measure(
      {
        name: 'Orthanc',
        pid: or.child.pid!,
        stowPath: '/dicom-web/studies',
        retrievePath: (uid) => `/dicom-web/studies/${uid}`,
        headers: {},
      },
      OR_PORT,
      study,
    );
  } finally {
    await or.stop();
  }
}

// ---------------------------------------------------------------- figures

const rate = (p: Phase) => p.files / p.seconds;
const mbps = (p: Phase) => p.bytes / 1e6 / p.seconds;
const cpuPer = (p: Phase) => p.cpuMs / p.files;
const pgPer = (p: Phase) => (p.threads['(postgresql)'] ?? NaN) / p.files;

/** The figures of a round, each with whether more is better. */
const FIGURES: Array<[string, (r: Round) => number, 'higher' | 'lower', number]> = [
  ['ingest instances/s', (r) => rate(r.ingest), 'higher', 0],
  ['ingest MB/s', (r) => mbps(r.ingest), 'higher', 1],
  ['ingest server CPU ms/instance', (r) => cpuPer(r.ingest), 'lower', 2],
  ['ingest PostgreSQL CPU ms/instance', (r) => pgPer(r.ingest), 'lower', 2],
  ['retrieve instances/s', (r) => rate(r.retrieve), 'higher', 0],
  ['retrieve MB/s', (r) => mbps(r.retrieve), 'higher', 1],
  ['retrieve server CPU ms/instance', (r) => cpuPer(r.retrieve), 'lower', 2],
  ['retrieve PostgreSQL CPU ms/instance', (r) => pgPer(r.retrieve), 'lower', 2],
  ['peak RSS MiB', (r) => r.rssMb, 'lower', 0],
];

/** Rows of [MedShare, Orthanc, MedShare ÷ Orthanc], one per figure. */
function table(title: string, rows: number[][]) {
  console.log(`\n${title}`);
  console.log('| figure | MedShare | Orthanc | MedShare ÷ Orthanc | better when |');
  console.log('|---|---:|---:|---:|---|');
  FIGURES.forEach(([name, , better, digits], k) => {
    const [a, b, ratio] = rows[k]!;
    console.log(`| ${name} | ${fmt(a!, digits)} | ${fmt(b!, digits)} | ${ratio!.toFixed(2)}× | ${better} |`);
  });
}

function details(who: string, r: Round) {
  const threads = (p: Phase) =>
    Object.entries(p.threads)
      .sort(([, a], [, b]) => b - a)
      .map(([name, v]) => `${name} ${fmt(v / p.files, 2)}`)
      .join(', ');
  console.log(
    `${who}: ingest ${r.stored} stored in ${fmt(r.ingest.seconds, 2)} s (CPU ms/instance by thread: ${threads(r.ingest)}); ` +
      (r.thumbnails
        ? `deferred thumbnails ${r.thumbnails.files} in ${fmt(r.thumbnails.seconds, 1)} s (${fmt(r.thumbnails.cpuMs / Math.max(1, r.thumbnails.files), 1)} ms CPU each); `
        : '') +
      `retrieve ${fmt(r.retrieve.seconds, 2)} s (CPU ms/instance by thread: ${threads(r.retrieve)}); ` +
      `byte-identical ${r.identical}/${r.stored}; peak RSS ${fmt(r.rssMb, 0)} MiB` +
      (Object.keys(r.failed).length ? `; failures ${JSON.stringify(r.failed)}` : ''),
  );
}

async function main() {
  console.log(`machine: ${machine()}`);
  const sample = ctStudy(INSTANCES, SERIES);
  console.log(
    `study: ${INSTANCES} instances, ${fmt(sample.bytes / 1e6)} MB (${fmt(sample.bytes / INSTANCES / 1000, 0)} KB mean), ` +
      `${SERIES} series (${sample.series.map((s) => `${s.instances} × ${s.fixture}`).join(', ')}); ` +
      `STOW ${BATCH} instances per request, concurrency ${CONCURRENCY}, ${RETRIEVES} whole-study retrieve(s) per round, ` +
      `${ROUNDS} rounds, warm-up ${WARMUP}, Orthanc index ${ORTHANC_PG ? 'PostgreSQL' : 'SQLite'}`,
  );
  const ours: Round[] = [];
  const theirs: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const study = round === 0 ? sample : ctStudy(INSTANCES, SERIES);
    // Alternate which goes first, so that neither always gets the quieter moment.
    const order = round % 2 === 0 ? (['ours', 'orthanc'] as const) : (['orthanc', 'ours'] as const);
    for (const who of order.filter((w) => !args.only || (args.only === 'orthanc') === (w === 'orthanc'))) {
      const r = who === 'ours' ? await medshareRound(study, round) : await orthancRound(study);
      (who === 'ours' ? ours : theirs).push(r);
      details(`round ${round + 1} ${who === 'ours' ? 'MedShare' : 'Orthanc'}`, r);
    }
    if (args.only) continue;
    const [o, t] = [ours[round]!, theirs[round]!];
    table(
      `round ${round + 1} (${order[0] === 'ours' ? 'MedShare' : 'Orthanc'} first)`,
      FIGURES.map(([, f]) => [f(o), f(t), f(o) / f(t)]),
    );
  }
  if (args.only) return agent.destroy();
  table(
    `medians of ${ROUNDS} round(s) (ratio: median of the per-round ratios)`,
    FIGURES.map(([, f]) => [
      median(ours.map(f)),
      median(theirs.map(f)),
      median(ours.map((o, i) => f(o) / f(theirs[i]!))),
    ]),
  );
  const ratio = (k: number) => median(ours.map((o, i) => FIGURES[k]![1](o) / FIGURES[k]![1](theirs[i]!)));
  console.log(
    `\ntarget ≥ 1× Orthanc (instances/s): ingest ${ratio(0).toFixed(2)}× ${ratio(0) >= 1 ? 'met' : 'NOT met'}, ` +
      `retrieve ${ratio(4).toFixed(2)}× ${ratio(4) >= 1 ? 'met' : 'NOT met'}`,
  );
  agent.destroy();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

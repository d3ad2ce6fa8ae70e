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
import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import { TransferSyntax, parseDicom } from '../server/src/modules/dicom/dicom-core.ts';
import {
  ADMIN,
  ROOT,
  agent,
  cpuMs,
  dropDatabase,
  fmt,
  freshDatabase,
  jsonOf,
  machine,
  median,
  multipart,
  peakRssMb,
  request,
  runPool,
  signIn,
  postgresCpuMs,
  startMedShare,
  threadCpuMs,
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

const DICOM_DIR = join(ROOT, 'server/test/fixtures/dicom');
/** Non-images (DICOMDIR, ECG, SR) and the two malformed files are left out: "valid images only". */
const EXCLUDED = /^(dicomdir_|ecg_|sr_|malformed_)/;
const sources = readdirSync(DICOM_DIR)
  .filter((n) => n.endsWith('.dcm') && !EXCLUDED.test(n))
  .sort()
  .map((name) => ({ name, data: readFileSync(join(DICOM_DIR, name)) }));

/** A UID of exactly `length` characters under the 2.25 (UUID-derived) root. */
function uidOfLength(length: number): string {
  let s = `2.25.${randomInt(1, 10)}`;
  while (s.length < length) s += String(randomInt(0, 10));
  return s.slice(0, length);
}

function replaceAll(buf: Buffer, from: Buffer, to: Buffer): number {
  let n = 0;
  for (let at = buf.indexOf(from); at !== -1; at = buf.indexOf(from, at + to.length)) {
    to.copy(buf, at);
    n++;
  }
  return n;
}

interface Template {
  name: string;
  /** Bytes to patch: the file itself, or meta + inflated data set for deflated files. */
  plain: Buffer;
  deflatedFrom: number | null;
  uids: string[];
}

function templateOf(src: { name: string; data: Buffer }): Template {
  const parsed = parseDicom(src.data);
  const ds = parsed.dataSet;
  const uids = ['x0020000d', 'x0020000e', 'x00080018']
    .map((t) => ds.string(t)?.replace(/\0/g, '').trim())
    .filter((u): u is string => !!u)
    .filter((u, i, all) => all.indexOf(u) === i)
    // Longest first, so that a UID that prefixes another is not rewritten inside it first.
    .sort((a, b) => b.length - a.length);
  if (uids.length === 0) throw new Error(`${src.name}: missing UIDs`);
  if (parsed.transferSyntax === TransferSyntax.deflatedLE) {
    const metaLength = ds.uint32('x00020000')!;
    return { name: src.name, plain: Buffer.from(parsed.byteArray), deflatedFrom: 132 + 12 + metaLength, uids };
  }
  return { name: src.name, plain: src.data, deflatedFrom: null, uids };
}

/** A copy of the template with fresh Study, Series and SOP Instance UIDs. */
function freshCopy(t: Template): Buffer {
  const out = Buffer.from(t.plain);
  for (const uid of t.uids) {
    const n = replaceAll(out, Buffer.from(uid, 'latin1'), Buffer.from(uidOfLength(uid.length), 'latin1'));
    if (n === 0) throw new Error(`${t.name}: UID ${uid} not found in the bytes`);
  }
  if (t.deflatedFrom === null) return out;
  return Buffer.concat([out.subarray(0, t.deflatedFrom), deflateRawSync(out.subarray(t.deflatedFrom))]);
}

const templates = sources.map(templateOf);

function ingestSet(size = INSTANCES): Array<{ name: string; data: Buffer }> {
  return Array.from({ length: size }, (_, i) => {
    const t = templates[i % templates.length]!;
    return { name: t.name, data: freshCopy(t) };
  });
}

// ---------------------------------------------------------------- Orthanc

async function startOrthanc(): Promise<{ child: ChildProcess; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'h6-orthanc-'));
  const dbName = 'h6_orthanc';
  if (ORTHANC_PG) await freshDatabase(dbName);
  mkdirSync(join(dir, 'storage'));
  const config = {
    Name: 'h6-bench',
    StorageDirectory: join(dir, 'storage'),
    IndexDirectory: join(dir, 'index'),
    HttpPort: OR_PORT,
    DicomServerEnabled: false,
    DicomPort: OR_PORT + 1,
    RemoteAccessAllowed: false,
    AuthenticationEnabled: false,
    HttpCompressionEnabled: false,
    StorageCompression: false,
    SaveJobs: false,
    Plugins: ORTHANC_PG ? ['/usr/share/orthanc/plugins/libOrthancPostgreSQLIndex.so'] : [],
    PostgreSQL: {
      EnableIndex: ORTHANC_PG,
      EnableStorage: false,
      Host: '127.0.0.1',
      Port: 5432,
      Database: dbName,
      Username: 'postgres',
      Password: '',
      Lock: false,
    },
  };
  writeFileSync(join(dir, 'orthanc.json'), JSON.stringify(config, null, 2));
  const child = spawn('/usr/sbin/Orthanc', [join(dir, 'orthanc.json')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-4000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  child.once('exit', () => process.off('exit', orphan));
  for (;;) {
    if (exited) throw new Error(`Orthanc exited during start-up:\n${log}`);
    const ok = await request(OR_PORT, 'GET', '/system')
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
      if (ORTHANC_PG) await dropDatabase(dbName).catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------- measuring

interface Phase {
  files: number;
  bytes: number;
  seconds: number;
  cpuMs: number;
  /** CPU by thread kind over the phase (threads that ended during it are not counted). */
  threads: Record<string, number>;
}
interface Round {
  ingest: Phase;
  /** MedShare only: making the thumbnails deferred during the ingest, before retrieval starts. */
  thumbnails?: Phase;
  retrieve: Phase;
  rssMb: number;
  refused: Record<string, number>;
}

const SKIPPED: Phase = { files: 0, bytes: 0, seconds: NaN, cpuMs: NaN, threads: {} };

async function phase(pid: number, files: number, bytes: () => number, run: () => Promise<void>): Promise<Phase> {
  const c0 = cpuMs(pid);
  const th0 = threadCpuMs(pid);
  const pg0 = postgresCpuMs();
  const t0 = performance.now();
  await run();
  const seconds = (performance.now() - t0) / 1000;
  const threads = threadCpuMs(pid);
  for (const k of Object.keys(threads)) threads[k]! -= th0[k] ?? 0;
  // Not the server's own: the database both servers index into, shown beside it.
  threads['(postgresql)'] = postgresCpuMs() - pg0;
  return { files, bytes: bytes(), seconds, cpuMs: cpuMs(pid) - c0, threads };
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
  const or = await startOrthanc();
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
    (['ingest', 'retrieve'] as const)
      .filter((k) => r[k].files > 0)
      .map(
        (k) =>
          `\n          ${k} cpu by thread (ms/file; PostgreSQL's processes in brackets): ${Object.entries(r[k].threads)
            .sort(([, a], [, b]) => b - a)
            .map(([name, v]) => `${name} ${fmt(v / r[k].files, 2)}`)
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

/**
 * The machine's limits for the upload path: AES-256-GCM throughput of Node's crypto (1 MiB
 * chunks, one core) and sequential write speed with fsync in DATA_DIR's filesystem; then the
 * upload pipeline's figure (bench/upload-bench.ts, run as a child) as a fraction of the smaller.
 *
 *   npx node bench/limits.ts [--gib 0.5] [--runs 5] [--upload-runs 5] [--upload-mbps N (skip the upload bench)]
 *
 * DATA_DIR (default ./data) is where the test file goes; it is removed afterwards. Not part of npm test.
 */
import { execFileSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, fmt, machine, median } from './support.ts';

const { values: args } = parseArgs({
  options: {
    gib: { type: 'string', default: '0.5' },
    runs: { type: 'string', default: '5' },
    'upload-runs': { type: 'string', default: '5' },
    'upload-mbps': { type: 'string', default: '' },
  },
});
const RUNS = Number(args.runs);
const MIB = 1024 * 1024;
const FILE_BYTES = Math.round(Number(args.gib) * 1024) * MIB;

/** MB/s of AES-256-GCM over 256 MiB in 1 MiB chunks, each chunk its own cipher (as the envelope does per chunk). */
function aesGcm(): number {
  const key = randomBytes(32);
  const chunk = randomBytes(MIB);
  const total = 256;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const c = createCipheriv('aes-256-gcm', key, randomBytes(12));
    c.update(chunk);
    c.final();
    c.getAuthTag();
  }
  return (total * MIB) / 1e6 / ((performance.now() - t0) / 1000);
}

/** MB/s of writing FILE_BYTES sequentially in 1 MiB writes and one fsync at the end. */
async function diskWrite(dir: string): Promise<number> {
  const path = join(dir, `h6-limits-${process.pid}.bin`);
  const chunk = randomBytes(MIB);
  const t0 = performance.now();
  const h = await open(path, 'w');
  try {
    for (let written = 0; written < FILE_BYTES; written += MIB) await h.write(chunk, 0, MIB);
    await h.sync();
  } finally {
    await h.close();
  }
  const mbps = FILE_BYTES / 1e6 / ((performance.now() - t0) / 1000);
  rmSync(path, { force: true });
  return mbps;
}

async function main() {
  const dataDir = resolve(process.env.DATA_DIR ?? join(ROOT, 'data'));
  mkdirSync(dataDir, { recursive: true });
  console.log(`machine: ${machine()}`);
  const aes: number[] = [];
  const disk: number[] = [];
  // Interleaved, so that a noisy moment on the shared machine hits both.
  for (let i = 0; i < RUNS; i++) {
    aes.push(aesGcm());
    disk.push(await diskWrite(dataDir));
  }
  const a = median(aes);
  const d = median(disk);
  console.log(
    `AES-256-GCM (node crypto, 1 MiB chunks, 1 core): median ${fmt(a, 0)} MB/s [${aes.map((x) => fmt(x, 0)).join(', ')}]`,
  );
  console.log(
    `sequential write ${fmt(FILE_BYTES / MIB, 0)} MiB + fsync in ${dataDir}: median ${fmt(d, 0)} MB/s [${disk.map((x) => fmt(x, 0)).join(', ')}]`,
  );
  let upload = Number(args['upload-mbps']);
  if (!upload) {
    const out = execFileSync(process.execPath, [join(ROOT, 'bench/upload-bench.ts'), args['upload-runs']!], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    process.stdout.write(out);
    upload = Number(/upload end to end[^\n]*median (\d+(?:\.\d+)?) MB\/s/.exec(out)?.[1]);
  }
  const floor = Math.min(a, d);
  console.log(
    `upload pipeline ${fmt(upload, 0)} MB/s = ${(upload / floor).toFixed(2)} of the smaller limit (${a < d ? 'AES-GCM' : 'disk'}, ${fmt(floor, 0)} MB/s)`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

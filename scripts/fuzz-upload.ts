/**
 * Upload fuzzer: mutated fixtures (bit flips, truncation, inserted bytes, swapped headers, wrong
 * MIME types and extensions, huge DICOM lengths, bomb-sized PNG/JPEG dimensions, empty files) in
 * well-formed and broken multipart bodies, sent over real HTTP to the app started in-process on a
 * fresh PGlite database. Fails on any 5xx, error without the envelope, hang or crash, and after the
 * run on any half-file: every image row's blob must decrypt to its recorded size and SHA-256, and
 * no blob or partial write may be left without a row.
 *
 *   npm run fuzz:upload -- [--cases 5000] [--seed 1] [--concurrency 4]
 *
 * Not part of npm test (its CI sibling is server/test/upload-fuzz.test.ts, 200 cases).
 */
import type { AddressInfo } from 'node:net';
import { createStorage } from '../server/src/storage/index.ts';
import { createTestApp, newUser } from '../server/test/harness.ts';
import { checkStorage, fuzzFixtures, judge, makeCase, send } from '../server/test/upload-mutations.ts';

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < 0) {
    console.error(`--${name} takes a non-negative integer`);
    process.exit(2);
  }
  return value;
}

const CASES = arg('cases', 5000);
const SEED = arg('seed', 1);
const CONCURRENCY = Math.max(1, arg('concurrency', 4));

const t = await createTestApp();
const doc = await newUser(t, 'healthProvider');
await t.app.listen({ port: 0, host: '127.0.0.1' });
const { port } = t.app.server.address() as AddressInfo;
const all = fuzzFixtures();

const statuses = new Map<string, number>();
const byKind = new Map<string, Map<number, number>>();
const findings: string[] = [];
let created = 0;
let next = 0;
let done = 0;
const started = performance.now();

async function worker() {
  for (;;) {
    const i = next++;
    if (i >= CASES) return;
    const c = makeCase(SEED, i, all);
    let status = 0;
    try {
      const res = await send(port, doc.token, c, 60_000);
      status = res.status;
      const finding = judge(res.status, res.body);
      if (finding) findings.push(`case ${i} (${c.kind}): ${finding}`);
      if (res.status === 201) created++;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      // A reset after the answer started (server refused early, client still writing) is not a finding.
      if (e.code === 'EPIPE' || e.code === 'ECONNRESET') status = -1;
      else findings.push(`case ${i} (${c.kind}): ${e.message}`);
    }
    const label = status === -1 ? 'reset' : status === 0 ? 'no answer' : String(status);
    statuses.set(label, (statuses.get(label) ?? 0) + 1);
    const kind = c.kind.split('/')[0]!;
    const perKind = byKind.get(kind) ?? new Map<number, number>();
    perKind.set(status, (perKind.get(status) ?? 0) + 1);
    byKind.set(kind, perKind);
    if (++done % 500 === 0) console.log(`${done}/${CASES} cases, ${findings.length} findings`);
  }
}

await Promise.all(Array.from({ length: CONCURRENCY }, worker));
const seconds = (performance.now() - started) / 1000;

await t.app.ctx.services.images.idle();
const health = await t.request({ method: 'GET', url: '/api/health' });
if (health.statusCode !== 200) findings.push(`health check answered ${health.statusCode} after the run`);
const check = await checkStorage({
  db: t.app.ctx.database.db,
  storage: createStorage(t.config),
  masterKey: t.config.masterKey,
  dataDir: t.config.dataDir,
});
if (check.rows !== created) findings.push(`${created} uploads answered 201 but ${check.rows} image rows exist`);
findings.push(...check.problems);

console.log(
  `\nseed ${SEED}: ${CASES} cases in ${seconds.toFixed(1)} s = ${(CASES / seconds).toFixed(1)} cases/s (concurrency ${CONCURRENCY})`,
);
console.log(
  'status histogram:',
  [...statuses]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, n]) => `${s}: ${n}`)
    .join(', '),
);
console.log('by file mutation (status: count):');
for (const [kind, counts] of [...byKind].sort(([a], [b]) => a.localeCompare(b))) {
  console.log(
    `  ${kind.padEnd(20)} ${[...counts]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
  );
}
console.log(
  `storage: ${check.rows} image rows, ${check.blobs} blobs, every one decrypts and verifies: ${check.problems.length === 0}`,
);
if (findings.length) {
  console.error(`\n${findings.length} FINDINGS:`);
  for (const f of findings.slice(0, 50)) console.error(`  ${f}`);
  process.exitCode = 1;
} else {
  console.log('no findings: never a 5xx, never a hang or crash, no half-file');
}
await t.close();

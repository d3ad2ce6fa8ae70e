// Sums the vitest and Playwright JSON reports into one closing line: 'N passed, N failed, N skipped'.
// A missing report counts as one failure: that suite did not run (it failed to start, or an earlier
// stage failed), and the line must not read as a clean run.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? '.reports';
let passed = 0;
let failed = 0;
let skipped = 0;

const vitestFile = join(dir, 'vitest.json');
if (existsSync(vitestFile)) {
  const r = JSON.parse(readFileSync(vitestFile, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  // A run that failed outside any test (an unhandled error, a file that did not load) is one failure.
  if (r.success === false && !r.numFailedTests) {
    console.error('vitest failed outside its tests: counted as one failure');
    failed += 1;
  }
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
} else {
  console.error(`no vitest report at ${vitestFile}: counted as one failure`);
  failed += 1;
}

const pwFile = join(dir, 'playwright.json');
if (existsSync(pwFile)) {
  const r = JSON.parse(readFileSync(pwFile, 'utf8'));
  passed += (r.stats?.expected ?? 0) + (r.stats?.flaky ?? 0);
  failed += r.stats?.unexpected ?? 0;
  // Errors of the run itself (its web server did not start, a spec did not load): one failure each.
  for (const error of r.errors ?? []) {
    console.error(`Playwright: ${String(error.message ?? error).split('\n')[0]}`);
    failed += 1;
  }
  skipped += r.stats?.skipped ?? 0;
} else {
  console.error(`no Playwright report at ${pwFile}: counted as one failure`);
  failed += 1;
}

console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);

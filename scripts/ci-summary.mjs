// Sums the vitest and Playwright JSON reports into one closing line: 'N passed, N failed, N skipped'.
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
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
} else {
  console.error(`no vitest report at ${vitestFile}`);
}

const pwFile = join(dir, 'playwright.json');
if (existsSync(pwFile)) {
  const r = JSON.parse(readFileSync(pwFile, 'utf8'));
  passed += (r.stats?.expected ?? 0) + (r.stats?.flaky ?? 0);
  failed += r.stats?.unexpected ?? 0;
  skipped += r.stats?.skipped ?? 0;
} else {
  console.error(`no Playwright report at ${pwFile}`);
}

console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);

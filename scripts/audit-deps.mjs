// Advisory check of the production dependencies: `npm audit --omit=dev --audit-level=high --json`.
//
//   exit 0  no high or critical advisory, or the registry's audit endpoint is unavailable
//           (refused with an HTTP error, or unreachable): says so in one clear line, because an
//           unanswered audit is neither a pass nor a reason to block every build;
//   exit 1  high or critical advisories: lists them;
//   exit 2  anything else (npm missing, output not understood): a broken check must not look green.
//
// Options: --report <file> writes the outcome as JSON (status, reason, counts, findings);
//          --strict (or AUDIT_STRICT=1) makes an unavailable endpoint exit 3 instead of 0.
// AUDIT_DEPS_INPUT=<file> reads a saved `npm audit --json` output instead of running npm (to check
// a report made elsewhere, and to exercise this script's own paths).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const reportAt = args.includes('--report') ? args[args.indexOf('--report') + 1] : undefined;
const strict = args.includes('--strict') || process.env.AUDIT_STRICT === '1';
const BLOCKING = ['high', 'critical'];

function finish(outcome, code) {
  if (reportAt) {
    mkdirSync(dirname(reportAt), { recursive: true });
    writeFileSync(reportAt, `${JSON.stringify({ ...outcome, at: new Date().toISOString() }, null, 2)}\n`);
  }
  process.exit(code);
}

let stdout;
let stderr = '';
if (process.env.AUDIT_DEPS_INPUT) {
  stdout = readFileSync(process.env.AUDIT_DEPS_INPUT, 'utf8');
} else {
  const run = spawnSync('npm', ['audit', '--omit=dev', '--audit-level=high', '--json'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 180_000,
  });
  if (run.error) {
    console.error(`audit-deps: could not run npm audit: ${run.error.message}`);
    finish({ status: 'error', reason: run.error.message }, 2);
  }
  stdout = run.stdout;
  stderr = run.stderr ?? '';
}

let report;
try {
  report = JSON.parse(stdout);
} catch {
  console.error('audit-deps: npm audit did not print JSON:');
  console.error((stdout || stderr).slice(0, 2000));
  finish({ status: 'error', reason: 'npm audit output is not JSON' }, 2);
}

// npm's shape when the advisory request itself failed: { message, statusCode?, code?, error }.
const networkCodes = /^(E(CONNREFUSED|CONNRESET|NOTFOUND|AI_AGAIN|TIMEDOUT|NETUNREACH|HOSTUNREACH)|ETIMEDOUT)$/;
const refused = typeof report.statusCode === 'number' && report.statusCode >= 400;
const unreachable = typeof report.code === 'string' && networkCodes.test(report.code);
if (!report.metadata && (refused || unreachable)) {
  const why = refused
    ? `the registry answered the advisory request with HTTP ${report.statusCode}${report.statusCode === 405 ? ' (Method Not Allowed)' : ''}`
    : `the advisory request failed (${report.code})`;
  const line = `audit-deps: audit endpoint unavailable: ${why}; production dependencies NOT checked for advisories`;
  console.log(line);
  finish({ status: 'unavailable', reason: why, checked: false }, strict ? 3 : 0);
}

const counts = report.metadata?.vulnerabilities;
if (!counts || typeof report.vulnerabilities !== 'object') {
  console.error('audit-deps: npm audit answered in a shape this script does not know:');
  console.error(JSON.stringify(report).slice(0, 2000));
  finish({ status: 'error', reason: 'unknown npm audit output' }, 2);
}

// One line per vulnerable package at a blocking severity, with the advisories behind it.
const findings = Object.values(report.vulnerabilities)
  .filter((v) => BLOCKING.includes(v.severity))
  .map((v) => ({
    name: v.name,
    severity: v.severity,
    range: v.range,
    advisories: (v.via ?? []).filter((via) => typeof via === 'object').map((via) => `${via.title} (${via.url})`),
    through: (v.via ?? []).filter((via) => typeof via === 'string'),
    fixAvailable: Boolean(v.fixAvailable),
  }));
const summary = `critical ${counts.critical ?? 0}, high ${counts.high ?? 0}, moderate ${counts.moderate ?? 0}, low ${counts.low ?? 0}`;
const deps = report.metadata?.dependencies?.prod ?? report.metadata?.dependencies?.total;

if (findings.length > 0) {
  console.log(
    `audit-deps: FAILED: ${findings.length} production package(s) with high or critical advisories (${summary})`,
  );
  for (const f of findings) {
    const via = f.advisories.length > 0 ? f.advisories.join('; ') : `through ${f.through.join(', ')}`;
    console.log(
      `  ${f.severity.padEnd(8)} ${f.name} ${f.range ?? ''}: ${via}${f.fixAvailable ? ' [fix available]' : ''}`,
    );
  }
  finish({ status: 'failed', checked: true, counts, findings }, 1);
}
console.log(`audit-deps: ok: no high or critical advisories in ${deps ?? '?'} production dependencies (${summary})`);
finish({ status: 'ok', checked: true, counts, findings: [] }, 0);

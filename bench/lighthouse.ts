/**
 * Lighthouse performance and accessibility scores of the built app, served by the real server
 * (PGlite, outbox mail) in a child process, measured in Debian's Chromium driven by puppeteer-core
 * over a pipe (no debugging port). Pages: the landing page, /login, and View Images signed in as a
 * provider with six uploaded JPEGs (the session is put where the web app's redux-persist keeps it).
 * Each page × preset is measured `--runs` times in a fresh browser context; medians are printed.
 *
 * Run: `npm run build -w web && npm run bench:lighthouse -- [--runs 3] [--presets mobile,desktop]
 *       [--pages landing,login,view-images] [--out DIR] [--proxy none|tls] [--study]`
 * `--study` gives the provider a DICOM study too: View Images then has its studies section above the cards.
 * `--proxy tls` measures through the deployment's edge: Debian's nginx terminating TLS with HTTP/2 in
 * front of the app (deploy/medshare-proxy.conf), as docs/operations.md deploys it; without it the
 * browser talks HTTP/1.1 to the app's own listener.
 * Env: WEB_DIST (default web/dist), BENCH_PORT (default 8192), CHROMIUM_PATH (default /usr/bin/chromium).
 * Not part of npm test.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import lighthouse, { type Config, type Flags, type Result, desktopConfig } from 'lighthouse';
import type { Browser } from 'puppeteer-core';
import { ROOT } from '../server/test/spawned-server.ts';
import { persistedSession, startSeededApp } from './view-images-seed.ts';

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    presets: { type: 'string', default: 'mobile,desktop' },
    pages: { type: 'string', default: 'landing,login,view-images' },
    out: { type: 'string' },
    proxy: { type: 'string', default: 'none' },
    study: { type: 'boolean', default: false },
  },
});
const RUNS = Number(opts.runs);
const PRESETS = opts.presets.split(',') as ('mobile' | 'desktop')[];
const PAGE_NAMES = opts.pages.split(',');
const WEB_DIST = process.env.WEB_DIST ?? join(ROOT, 'web/dist');
const PORT = Number(process.env.BENCH_PORT ?? 8192);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (!existsSync(join(WEB_DIST, 'index.html'))) {
  console.error(`No built web app at ${WEB_DIST}: run 'npm run build -w web' (or set WEB_DIST).`);
  process.exit(2);
}
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs must be a positive integer');
if (opts.proxy !== 'none' && opts.proxy !== 'tls') throw new Error('--proxy is none or tls');
const PROXY = opts.proxy;

const outDir = opts.out ?? join(tmpdir(), 'medshare-lighthouse-reports');
mkdirSync(outDir, { recursive: true });

type Page = { name: string; path: string; signedIn: boolean };
const PAGES: Page[] = [
  { name: 'landing', path: '/', signedIn: false },
  { name: 'login', path: '/login', signedIn: false },
  { name: 'view-images', path: '/view-images', signedIn: true },
].filter((p) => PAGE_NAMES.includes(p.name));

type Scores = { performance: number; accessibility: number; lcpMs: number; tbtMs: number; cls: number };

async function measure(
  browser: Browser,
  base: string,
  page: Page,
  preset: 'mobile' | 'desktop',
  session: { token: string; user: unknown },
  run: number,
): Promise<Scores> {
  // A fresh context per run: empty cache and storage, as a first visit.
  const context = await browser.createBrowserContext();
  try {
    const tab = await context.newPage();
    const flags: Flags = { logLevel: 'error', output: 'json', onlyCategories: ['performance', 'accessibility'] };
    if (page.signedIn) {
      // The web app rehydrates its session from redux-persist's `persist:root` (web/src/lib/store.ts):
      // each whitelisted slice is a JSON string inside the JSON object. Set it from a JSON route so
      // that no app asset lands in the cache before the measured load, and keep Lighthouse from
      // wiping storage (the context is new, so the cache is still cold).
      await tab.goto(`${base}/api/health`);
      await tab.evaluate((value) => localStorage.setItem('persist:root', value), persistedSession(session));
      flags.disableStorageReset = true;
    }
    const config: Config | undefined = preset === 'desktop' ? desktopConfig : undefined;
    const result = await lighthouse(`${base}${page.path}`, flags, config, tab);
    if (!result) throw new Error('lighthouse returned nothing');
    const lhr: Result = result.lhr;
    if (lhr.runtimeError) throw new Error(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
    if (page.signedIn && !lhr.finalDisplayedUrl.endsWith(page.path)) {
      throw new Error(`signed-in page ended at ${lhr.finalDisplayedUrl}: the injected session was not taken`);
    }
    writeFileSync(join(outDir, `${page.name}-${preset}-${run}.json`), JSON.stringify(lhr));
    return {
      performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
      accessibility: Math.round((lhr.categories.accessibility?.score ?? 0) * 100),
      lcpMs: lhr.audits['largest-contentful-paint']?.numericValue ?? NaN,
      tbtMs: lhr.audits['total-blocking-time']?.numericValue ?? NaN,
      cls: lhr.audits['cumulative-layout-shift']?.numericValue ?? NaN,
    };
  } finally {
    await context.close();
  }
}

/**
 * Lighthouse sometimes fails to record a trace (NO_NAVSTART, NO_FCP) on a loaded machine: such a run
 * is measured again, up to twice, and said so; any other failure stops the bench.
 */
async function measureOrRetry(...args: Parameters<typeof measure>): Promise<Scores> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await measure(...args);
    } catch (err) {
      const code = /^(NO_[A-Z_]+):/.exec((err as Error).message)?.[1];
      if (!code || attempt > 2) throw err;
      console.log(`    ${args[2].path} ${args[3]} run ${args[5]}: Lighthouse ${code}, measuring again`);
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** The audits that cost the most on the last run of a page: what to fix first. */
function topFindings(file: string): string[] {
  const lhr = JSON.parse(readFileSync(file, 'utf8')) as Result;
  return Object.values(lhr.audits)
    .filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== 'informative')
    .filter((a) => a.scoreDisplayMode !== 'notApplicable' && a.scoreDisplayMode !== 'manual')
    .slice(0, 8)
    .map((a) => `${a.id}${a.displayValue ? ` (${a.displayValue})` : ''}`);
}

const { base, browser, session, close } = await startSeededApp({
  webDist: WEB_DIST,
  port: PORT,
  chromium: CHROMIUM,
  proxy: PROXY,
  study: opts.study,
});
try {
  const rows: string[] = [];
  const lhVersion = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules/lighthouse/package.json'), 'utf8')) as { version: string }
  ).version;
  console.log(
    `Lighthouse ${lhVersion}, ${await browser.version()}, ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(1)}, ${base}` +
      (PROXY === 'tls' ? ' (nginx: TLS, HTTP/2)' : ''),
  );
  for (const page of PAGES) {
    for (const preset of PRESETS) {
      const runs: Scores[] = [];
      for (let run = 1; run <= RUNS; run++) runs.push(await measureOrRetry(browser, base, page, preset, session, run));
      const perf = runs.map((r) => r.performance);
      const a11y = runs.map((r) => r.accessibility);
      const row =
        `| ${page.path} | ${preset} | **${median(perf)}** (${perf.join(', ')}) | **${median(a11y)}** (${a11y.join(', ')}) ` +
        `| ${Math.round(median(runs.map((r) => r.lcpMs)))} ms | ${Math.round(median(runs.map((r) => r.tbtMs)))} ms ` +
        `| ${median(runs.map((r) => r.cls)).toFixed(3)} |`;
      rows.push(row);
      console.log(row);
      console.log(
        `    below 0.9: ${topFindings(join(outDir, `${page.name}-${preset}-${RUNS}.json`)).join(', ') || 'none'}`,
      );
    }
  }
  console.log('\n| page | preset | performance, median (runs) | accessibility, median (runs) | LCP | TBT | CLS |');
  console.log('|---|---|---|---|---:|---:|---:|');
  for (const row of rows) console.log(row);
  console.log(`\nFull reports (Lighthouse JSON): ${outDir}; load average at the end ${loadavg()[0]!.toFixed(1)}`);
} finally {
  await close();
}

/**
 * Where View Images' main thread goes on a slowed phone: one load of the built app, signed in as the
 * provider of bench/view-images-seed.ts, in Debian's Chromium at Lighthouse's mobile size with the CPU
 * slowed 4x (CDP `Emulation.setCPUThrottlingRate`; `--preset desktop`: Lighthouse's desktop size at
 * this machine's speed), profiled by V8's sampling profiler. The samples
 * are mapped through the build's source maps to the package or source folder they ran in.
 *
 * Prints each busy stretch of the main thread over 50 ms (a "long task" as Lighthouse counts them,
 * approximated by samples with gaps under 4 ms) with its five largest modules, then the whole load's
 * modules and the paint times. The stretches after the first contentful paint are what Total
 * Blocking Time counts, less 50 ms each.
 *
 * Run: `cd web && npx vite build --sourcemap --outDir /tmp/dist-map`, then
 *      `WEB_DIST=/tmp/dist-map node bench/web-profile.ts [--runs 3] [--preset mobile|desktop] [--out profile.cpuprofile] [--study]`
 * `--study`: the provider also has a DICOM study (bench/view-images-seed.ts).
 * Env: BENCH_PORT (default 8193), CHROMIUM_PATH (default /usr/bin/chromium). Not part of npm test.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SourceMapConsumer } from 'source-map-js';
import { persistedSession, startSeededApp } from './view-images-seed.ts';

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    out: { type: 'string' },
    preset: { type: 'string', default: 'mobile' },
    study: { type: 'boolean', default: false },
  },
});
/** Lighthouse's two presets: a phone with the CPU slowed 4x, or a desktop at this machine's speed. */
const PRESETS = {
  mobile: {
    viewport: { width: 412, height: 823, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true },
    cpuRate: 4,
  },
  desktop: {
    viewport: { width: 1350, height: 940, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
    cpuRate: 1,
  },
} as const;
if (opts.preset !== 'mobile' && opts.preset !== 'desktop') throw new Error('--preset is mobile or desktop');
const PRESET = PRESETS[opts.preset];
const RUNS = Number(opts.runs);
const WEB_DIST = process.env.WEB_DIST;
const PORT = Number(process.env.BENCH_PORT ?? 8193);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Samples closer than this belong to one task; a longer gap is the event loop going idle. */
const TASK_GAP_MS = 4;

if (
  !WEB_DIST ||
  !existsSync(join(WEB_DIST, 'assets')) ||
  !readdirSync(join(WEB_DIST, 'assets')).some((f) => f.endsWith('.js.map'))
) {
  console.error('Set WEB_DIST to a build made with --sourcemap (see the comment at the top).');
  process.exit(2);
}

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
};
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };

const consumers = new Map<string, SourceMapConsumer | null>();
function consumerFor(url: string): SourceMapConsumer | null {
  const file = url.replace(/^https?:\/\/[^/]+\//, '');
  if (!consumers.has(file)) {
    const map = join(WEB_DIST!, `${file}.map`);
    consumers.set(file, existsSync(map) ? new SourceMapConsumer(JSON.parse(readFileSync(map, 'utf8'))) : null);
  }
  return consumers.get(file)!;
}

/** A sample's place as a reader names it: an npm package, a web/src folder, or V8's own bucket. */
function moduleOf(node: ProfileNode): string {
  const { url, functionName, lineNumber, columnNumber } = node.callFrame;
  if (!url) return `(${functionName || 'native'})`.replace(/^\(\((.*)\)\)$/, '($1)');
  const consumer = consumerFor(url);
  if (!consumer) return url.replace(/^https?:\/\/[^/]+/, '');
  const source = consumer.originalPositionFor({ line: lineNumber + 1, column: columnNumber }).source;
  if (!source) return '(unmapped)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (pkg) return pkg[1]!;
  const local = /(web\/src|contracts\/src)\/(.*)/.exec(source);
  return local ? `${local[1]}/${local[2]!.split('/').slice(0, 2).join('/')}` : source;
}

const top = (counts: Map<string, number>, n: number) =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, ms]) => `${k} ${ms.toFixed(0)}`)
    .join(', ');

function report(profile: Profile, paints: Record<string, number>, navigationStartUs: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let at = profile.startTime;
  const tasks: { start: number; end: number; modules: Map<string, number> }[] = [];
  const whole = new Map<string, number>();
  let current: (typeof tasks)[number] | null = null;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i]! / 1000;
    at += profile.timeDeltas[i]!;
    const id = profile.samples[i]!;
    if (idle.has(id)) continue;
    const ms = (at - navigationStartUs) / 1000;
    if (!current || ms - current.end > TASK_GAP_MS) {
      current = { start: ms, end: ms, modules: new Map() };
      tasks.push(current);
    }
    current.end = ms;
    const name = moduleOf(byId.get(id)!);
    current.modules.set(name, (current.modules.get(name) ?? 0) + delta);
    whole.set(name, (whole.get(name) ?? 0) + delta);
  }
  console.log(
    `paints (ms after navigation): ${Object.entries(paints)
      .map(([k, v]) => `${k} ${v.toFixed(0)}`)
      .join(', ')}`,
  );
  let blocking = 0;
  for (const task of tasks) {
    const length = task.end - task.start;
    if (length < 50) continue;
    const afterFcp = task.start >= (paints['first-contentful-paint'] ?? Infinity);
    if (afterFcp) blocking += length - 50;
    console.log(
      `  ${task.start.toFixed(0).padStart(6)} ms +${length.toFixed(0).padStart(4)}${afterFcp ? ' *' : '  '} ${top(task.modules, 5)}`,
    );
  }
  console.log(`  blocking after the first paint (* above, less 50 ms each): ${blocking.toFixed(0)} ms`);
  console.log(`  whole load, busy ms by module: ${top(whole, 14)}`);
}

const { base, browser, session, close } = await startSeededApp({
  webDist: WEB_DIST,
  port: PORT,
  chromium: CHROMIUM,
  study: opts.study,
});
try {
  for (let run = 1; run <= RUNS; run++) {
    const context = await browser.createBrowserContext();
    const tab = await context.newPage();
    await tab.setViewport(PRESET.viewport);
    await tab.goto(`${base}/api/health`);
    await tab.evaluate((value) => localStorage.setItem('persist:root', value), persistedSession(session));
    const cdp = await tab.createCDPSession();
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: PRESET.cpuRate });
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    await tab.goto(`${base}/view-images`, { waitUntil: 'networkidle0' });
    await new Promise((r) => setTimeout(r, 2_000));
    const paints = await tab.evaluate(() => {
      const out: Record<string, number> = {};
      // The browser's Performance (this file is typed for Node's).
      const perf = performance as unknown as { getEntriesByType(type: string): { name: string; startTime: number }[] };
      for (const e of perf.getEntriesByType('paint')) out[e.name] = e.startTime;
      const lcp = perf.getEntriesByType('largest-contentful-paint').at(-1);
      if (lcp) out['largest-contentful-paint'] = lcp.startTime;
      return out;
    });
    // The profile's timestamps and performance.now() share Chromium's monotonic clock, in µs and ms
    // from different origins: read the page's clock right before the profile ends to line them up
    // (within the few ms between the two commands).
    const { result } = await cdp.send('Runtime.evaluate', { expression: 'performance.now()' });
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile & { endTime: number } };
    const navigationStartUs = profile.endTime - (result.value as number) * 1000;
    console.log(`\nrun ${run}`);
    report(profile, paints, navigationStartUs);
    if (opts.out) writeFileSync(`${opts.out.replace(/\.cpuprofile$/, '')}-${run}.cpuprofile`, JSON.stringify(profile));
    await context.close();
  }
} finally {
  await close();
}

/**
 * The web app's study import and stack viewer with a whole CT study (issue 15 › Speed: "Web import of
 * the same study as a folder: time to all files stored, and scrolling frame time in the stack
 * viewer"), in Debian's Chromium driven by playwright-core, against the real server (PostgreSQL,
 * outbox mail) serving a private build of the web app.
 *
 *   cd web && npx vite build --outDir /tmp/<you>/dist --emptyOutDir
 *   WEB_DIST=/tmp/<you>/dist npm run bench:study-web -- [--instances 500] [--series 4]
 *        [--widths 1280,390] [--scroll 2,3] [--port 8323]
 *
 * The study is bench/support.ts ctStudy (made as study-compare.ts makes its own), written as a folder
 * (S<series>/IM<number>.dcm). A provider signs in (the session put where the web app's
 * redux-persist keeps it), picks the folder with "Choose a folder" on the Upload screen, names the
 * patient and starts the import: the clock runs from that click to "Import finished" (every file
 * stored, each through POST /api/upload/image, 3 at a time as the app sends them). The thumbnails the
 * server deferred are then awaited (not in that time) so that they do not compete with the viewer.
 *
 * Then, at each width (1280×800 at 1× and 390×844 at 3× as a phone), in a fresh browser context,
 * each series of `--scroll` opens in the stack viewer and is scrolled three times through every
 * slice, measured in the page (requestAnimationFrame and Cornerstone's STACK_NEW_IMAGE /
 * IMAGE_RENDERED events on the viewport):
 * - flick, first pass: one ArrowDown per animation frame from the first slice to the last, right
 *   after opening (frames mostly still to fetch and decode): frame time (rAF interval) p50/p95/max,
 *   how many of the slices were shown on the way, and the time until the last one was on screen;
 * - flick, second pass: the same with the frames cached;
 * - steps: one ArrowDown at a time, each waiting for its slice to be drawn and its number shown:
 *   key to slice shown, p50/p95/max.
 * Headless Chromium renders in software (no GPU) on this machine: the figures are for comparing
 * builds, not a phone's. Not part of npm test.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Browser, type Page, chromium } from 'playwright-core';
import {
  type BenchStudy,
  agent,
  ctStudy,
  fmt,
  jsonOf,
  machine,
  peakRssMb,
  percentile,
  phase,
  providerAndPatient,
  request,
  startMedShare,
  withPg,
} from './support.ts';

const { values: args } = parseArgs({
  options: {
    instances: { type: 'string', default: '500' },
    series: { type: 'string', default: '4' },
    widths: { type: 'string', default: '1280,390' },
    /** Series Numbers to scroll (2: 512² implicit LE, 3: 512² JPEG-LS lossless in ctStudy's order). */
    scroll: { type: 'string', default: '2,3' },
    port: { type: 'string', default: '8323' },
  },
});
const INSTANCES = Number(args.instances);
const SERIES = Number(args.series);
const WIDTHS = args.widths.split(',').map(Number);
const SCROLL = args.scroll.split(',').filter(Boolean).map(Number);
const PORT = Number(args.port);
const WEB_DIST = process.env.WEB_DIST ?? '';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (!WEB_DIST || !existsSync(join(WEB_DIST, 'index.html'))) {
  console.error(
    'Set WEB_DIST to a private build of the web app: cd web && npx vite build --outDir /tmp/<you>/dist --emptyOutDir',
  );
  process.exit(2);
}

const VIEWPORTS: Record<number, { width: number; height: number; deviceScaleFactor: number; mobile: boolean }> = {
  1280: { width: 1280, height: 800, deviceScaleFactor: 1, mobile: false },
  390: { width: 390, height: 844, deviceScaleFactor: 3, mobile: true },
};

function writeFolder(study: BenchStudy): string {
  const root = mkdtempSync(join(tmpdir(), 'h6-study-folder-'));
  const dir = join(root, 'CT_STUDY');
  for (const i of study.instances) {
    const path = join(dir, i.name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, i.data);
  }
  return root;
}

/** A fresh browser context signed in as `session` (the web app rehydrates `persist:root`). */
async function signedInPage(browser: Browser, base: string, width: number, session: unknown): Promise<Page> {
  const vp = VIEWPORTS[width] ?? { width, height: 800, deviceScaleFactor: 1, mobile: false };
  const context = await browser.newContext({
    baseURL: base,
    viewport: { width: vp.width, height: vp.height },
    deviceScaleFactor: vp.deviceScaleFactor,
    isMobile: vp.mobile,
    hasTouch: vp.mobile,
  });
  const page = await context.newPage();
  await page.goto('/api/health');
  const persisted = JSON.stringify({
    session: JSON.stringify(session),
    _persist: JSON.stringify({ version: -1, rehydrated: true }),
  });
  await page.evaluate((value) => localStorage.setItem('persist:root', value), persisted);
  return page;
}

// ---------------------------------------------------------------- in the page

/** The browser globals the in-page functions use (the bench compiles without the DOM library). */
interface InPage {
  document: { querySelector(selector: string): (EventTarget & PageElement) | null };
  requestAnimationFrame(callback: (now: number) => void): number;
  KeyboardEvent: new (type: string, init: { key: string; bubbles: boolean }) => Event;
}
interface PageElement {
  focus(): void;
  getAttribute(name: string): string | null;
}
const VIEWPORT = '[data-testid=stack-viewport]';

interface Flick {
  slices: number;
  shown: number;
  frames: number[];
  /** From the first input to the last slice rendered. */
  ms: number;
}

/**
 * One ArrowDown per animation frame from the current slice to the last; runs in the page. `shown`:
 * the slices drawn on the way (the viewer skips those whose frames are not ready yet).
 */
function flickInPage(slices: number): Promise<Flick> {
  const w = globalThis as unknown as InPage;
  const el = w.document.querySelector('[data-testid=stack-viewport]')!;
  let current = -1;
  const shown = new Set<number>();
  const onNew = (e: Event) => (current = (e as CustomEvent<{ imageIdIndex: number }>).detail.imageIdIndex);
  const onRendered = () => current >= 0 && shown.add(current);
  el.addEventListener('CORNERSTONE_STACK_NEW_IMAGE', onNew);
  el.addEventListener('CORNERSTONE_IMAGE_RENDERED', onRendered);
  el.focus();
  return new Promise((resolve) => {
    const frames: number[] = [];
    let sent = 0;
    let t0 = 0;
    let last = 0;
    const tick = (now: number) => {
      if (t0 === 0) t0 = last = now;
      else frames.push(now - last);
      last = now;
      if (sent < slices - 1) {
        el.dispatchEvent(new w.KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
        sent++;
      } else if (shown.has(slices - 1) || now - t0 > 120_000) {
        el.removeEventListener('CORNERSTONE_STACK_NEW_IMAGE', onNew);
        el.removeEventListener('CORNERSTONE_IMAGE_RENDERED', onRendered);
        resolve({ slices, shown: shown.size, frames, ms: now - t0 });
        return;
      }
      w.requestAnimationFrame(tick);
    };
    w.requestAnimationFrame(tick);
  });
}

/** ArrowDown one at a time, each waiting for its slice on screen: input-to-rendered times; in the page. */
async function stepsInPage(slices: number): Promise<number[]> {
  const w = globalThis as unknown as InPage;
  const el = w.document.querySelector('[data-testid=stack-viewport]')!;
  el.focus();
  const times: number[] = [];
  let current = -1;
  let waiting: { index: number; resolve: () => void } | null = null;
  const seen: string[] = [];
  const onNew = (e: Event) => {
    current = (e as CustomEvent<{ imageIdIndex: number }>).detail.imageIdIndex;
    seen.push(`new ${current} @${performance.now().toFixed(0)}`);
  };
  const onRendered = () => {
    seen.push(`rendered @${performance.now().toFixed(0)}`);
    if (!waiting || current !== waiting.index) return;
    // Done when the viewer shows it too (its slice number): a key pressed before React has taken the
    // last render's slice would be counted from that older slice (stack-viewer.tsx targetRef).
    const { index, resolve } = waiting;
    const shown = () => (el.getAttribute('data-slice') === String(index) ? resolve() : w.requestAnimationFrame(shown));
    shown();
  };
  el.addEventListener('CORNERSTONE_STACK_NEW_IMAGE', onNew);
  el.addEventListener('CORNERSTONE_IMAGE_RENDERED', onRendered);
  for (let k = 1; k < slices; k++) {
    const t0 = performance.now();
    const shown = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 30_000);
      waiting = {
        index: k,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      el.dispatchEvent(new w.KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
    });
    if (!shown)
      throw new Error(
        `slice ${k + 1} of ${slices} not rendered within 30 s of its key press; data-slice ${el.getAttribute('data-slice')}; events: ${seen.slice(-12).join(', ')}`,
      );
    times.push(performance.now() - t0);
  }
  el.removeEventListener('CORNERSTONE_STACK_NEW_IMAGE', onNew);
  el.removeEventListener('CORNERSTONE_IMAGE_RENDERED', onRendered);
  return times;
}

// ---------------------------------------------------------------- the run

const started = performance.now();
/** Progress on stderr (a run takes minutes). */
const log = (what: string) => console.error(`[${fmt((performance.now() - started) / 1000, 0)} s] ${what}`);

const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(sorted, 50))} / p95 ${fmt(percentile(sorted, 95))} / max ${fmt(sorted.at(-1) ?? NaN)} ms`;
};

async function toFirstSlice(page: Page) {
  const viewport = page.getByTestId('stack-viewport');
  await viewport.focus();
  await page.keyboard.press('Home');
  await page.waitForFunction(
    (selector) =>
      (globalThis as unknown as InPage).document.querySelector(selector)?.getAttribute('data-slice') === '0',
    VIEWPORT,
  );
}

async function main() {
  console.log(`machine: ${machine()}`);
  const study = ctStudy(INSTANCES, SERIES);
  const folder = writeFolder(study);
  console.log(
    `study: ${INSTANCES} instances, ${fmt(study.bytes / 1e6)} MB, ${SERIES} series (${study.series.map((s) => `${s.instances} × ${s.fixture}`).join(', ')}); web build ${WEB_DIST}`,
  );
  const ms = await startMedShare({ port: PORT, database: 'h6_ms_study_web', env: { WEB_DIST } });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    const base = `http://127.0.0.1:${PORT}`;
    const { provider, patient } = await providerAndPatient(ms);
    const auth = { authorization: `Bearer ${provider.token}` };
    const user = jsonOf<{ data: unknown }>(await request(PORT, 'GET', '/api/users/profile', null, auth)).data;
    const session = { token: provider.token, user };
    const pid = ms.child.pid!;
    log('server up, provider and patient made');

    // ---- the import
    const page = await signedInPage(browser, base, 1280, session);
    await page.goto('/upload');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Choose a folder' }).click();
    await (await chooser).setFiles(join(folder, 'CT_STUDY'));
    const startButton = page.getByRole('button', { name: `Import ${INSTANCES} DICOM files` });
    await startButton.waitFor({ timeout: 120_000 });
    const picker = page.getByRole('combobox', { name: 'Patient' });
    await picker.fill('Khan');
    await page.getByRole('option', { name: new RegExp(patient.email.replace(/[.]/g, '\\.')) }).click();
    const done = page.getByTestId('import-done');
    log('folder planned, patient chosen: importing');
    const imported = await phase(
      pid,
      INSTANCES,
      () => study.bytes,
      async () => {
        await startButton.click();
        await done.waitFor({ timeout: 60 * 60_000 });
      },
    );
    const summary = await done.textContent();
    const expected = `Import finished: ${INSTANCES} stored, 0 already stored, 0 failed, 0 skipped.`;
    if (summary !== expected) throw new Error(`import: "${summary}", expected "${expected}"`);
    const pending = () =>
      withPg(ms.databaseUrl, async (c) =>
        Number((await c.query(`SELECT count(*) AS n FROM images WHERE thumbnail_status = 'pending'`)).rows[0].n),
      );
    log(summary);
    const backlog = await pending();
    const thumbs = await phase(
      pid,
      backlog,
      () => 0,
      async () => {
        while ((await pending()) > 0) await new Promise((r) => setTimeout(r, 250));
      },
    );
    await page.context().close();
    console.log(
      `\nimport (1280 px, folder of ${INSTANCES} files): all stored in ${fmt(imported.seconds, 1)} s — ` +
        `${fmt(INSTANCES / imported.seconds, 0)} files/s, ${fmt(study.bytes / 1e6 / imported.seconds)} MB/s; ` +
        `server CPU ${fmt(imported.cpuMs / INSTANCES, 1)} ms/file (+ PostgreSQL ${fmt((imported.threads['(postgresql)'] ?? NaN) / INSTANCES, 1)}); ` +
        `then ${backlog} deferred thumbnails in ${fmt(thumbs.seconds, 1)} s; server peak RSS ${fmt(peakRssMb(pid), 0)} MiB`,
    );

    // ---- the stack viewer
    const rows: string[] = [];
    for (const width of WIDTHS) {
      const viewer = await signedInPage(browser, base, width, session);
      for (const number of SCROLL) {
        const series = study.series.find((s) => s.number === number);
        if (!series) throw new Error(`no series ${number}`);
        const t0 = Date.now();
        await viewer.goto(`/studies/${study.studyUid}/series/${series.uid}`);
        await viewer
          .getByTestId('stack-viewport')
          .and(viewer.locator('[data-state=rendered]'))
          .waitFor({ timeout: 120_000 });
        const open = Date.now() - t0;
        log(`${width} px, series ${number}: open, flick 1`);
        const slices = series.instances * (series.fixture.includes('multiframe') ? 2 : 1);
        const cold = await viewer.evaluate(flickInPage, slices);
        await toFirstSlice(viewer);
        log(`${width} px, series ${number}: flick 2`);
        const warm = await viewer.evaluate(flickInPage, slices);
        await toFirstSlice(viewer);
        log(`${width} px, series ${number}: steps`);
        const steps = await viewer.evaluate(stepsInPage, slices);
        rows.push(
          `| ${width} | ${number} (${series.fixture}) | ${slices} | ${fmt(open, 0)} ms | ${stats(cold.frames)} | ${cold.shown} / ${fmt(cold.ms, 0)} ms | ` +
            `${stats(warm.frames)} | ${warm.shown} / ${fmt(warm.ms, 0)} ms | ${stats(steps)} |`,
        );
      }
      await viewer.context().close();
    }
    console.log(
      '\n| width | series | slices | open to first image | flick 1 (cold): frame time | flick 1: slices drawn / time to the last | flick 2 (cached): frame time | flick 2: drawn / time | steps: key to slice shown |',
    );
    console.log('|---|---|---:|---:|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    await browser.close();
    await ms.stop();
    rmSync(folder, { recursive: true, force: true });
    agent.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

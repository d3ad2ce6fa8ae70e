import { expect, test } from '@playwright/test';
import { registerViaApi, uniqueUser } from '../support/api.ts';
import { screenshot, signInWithSession } from '../support/ui.ts';

/**
 * The app's first render waits for the page's chunks (web/src/main.tsx, app/lazy-page.tsx;
 * docs/decisions.md › Pages rendered once their chunks are in): rendered before them it committed the
 * route's fallback, and React then held the page back for its 300 ms reveal throttle. A chunk slower
 * than PROGRESS_DELAY_MS still gets the fallback and its spinner.
 */
const PROGRESS_DELAY_MS = 500;

/** `batch`: which MutationObserver callback saw it (one commit's insertions come in one). */
type Attached = { what: 'fallback' | 'banner' | 'heading'; at: number; batch: number };

declare global {
  interface Window {
    attached: Attached[];
  }
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test.describe(`at ${viewport.width} px`, () => {
    test.use({ viewport });

    test.beforeEach(async ({ page }) => {
      const patient = uniqueUser('patient');
      await registerViaApi(patient);
      await signInWithSession(page, patient.email, patient.password);
      await expect(page.getByRole('heading', { name: 'View Medical Images' })).toBeVisible();
      // The route's fallback, the app's top bar and the page's heading, each with when it was attached.
      await page.addInitScript(() => {
        window.attached = [];
        const kinds = [
          ['fallback', '[aria-label="Loading page"]'],
          ['banner', 'header'],
          ['heading', 'h1'],
        ] as const;
        let batch = 0;
        new MutationObserver((records) => {
          batch += 1;
          for (const record of records)
            for (const node of record.addedNodes) {
              if (!(node instanceof Element)) continue;
              for (const [what, selector] of kinds)
                if (node.matches(selector) || node.querySelector(selector))
                  window.attached.push({ what, at: performance.now(), batch });
            }
        }).observe(document, { childList: true, subtree: true });
      });
    });

    test('a reload of View Images draws the frame and the page in one commit, with no fallback', async ({ page }) => {
      await page.reload();
      await expect(page.getByRole('heading', { name: 'View Medical Images' })).toBeVisible();
      const attached = await page.evaluate(() => window.attached);
      expect(
        attached.filter((a) => a.what === 'fallback'),
        JSON.stringify(attached),
      ).toEqual([]);
      const banner = attached.find((a) => a.what === 'banner');
      const heading = attached.find((a) => a.what === 'heading');
      expect(banner, JSON.stringify(attached)).toBeDefined();
      // One mutation batch: the same commit inserted both.
      expect(heading?.batch, JSON.stringify(attached)).toBe(banner!.batch);
    });

    test('a slow page chunk still shows the fallback, its spinner after the delay, then the page', async ({ page }) => {
      // View Images' chunk is held back until the spinner has been seen: a fixed delay left the
      // spinner's time on screen to the machine's load, and a busy CI polled past it.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/assets/view-images-*.js', async (route) => {
        await released;
        await route.continue();
      });
      await page.reload({ waitUntil: 'commit' });
      const spinner = page.getByRole('progressbar', { name: 'Loading page' });
      await expect(spinner).toHaveClass(/MuiCircularProgress-root/);
      await screenshot(page, 'start-up-slow-chunk');
      release();
      await expect(page.getByRole('heading', { name: 'View Medical Images' })).toBeVisible();
      await expect(spinner).toHaveCount(0);
      const attached = await page.evaluate(() => window.attached);
      const fallback = attached.find((a) => a.what === 'fallback');
      const heading = attached.find((a) => a.what === 'heading');
      expect(fallback, JSON.stringify(attached)).toBeDefined();
      expect(heading!.at - fallback!.at, JSON.stringify(attached)).toBeGreaterThan(PROGRESS_DELAY_MS);
    });
  });
}

/**
 * The HTML of a page of the app names the chunks of the page it opens (server/src/http/route-preloads.ts,
 * from web/build/route-preloads.ts), so that they come beside the entry instead of after it has run.
 */
test('the HTML names the chunks of the page it opens, and the browser fetches each once', async ({ page, request }) => {
  const patient = uniqueUser('patient');
  await registerViaApi(patient);
  const html = await (await request.get('/view-images')).text();
  const preloaded = [...html.matchAll(/<link rel="modulepreload" crossorigin href="([^"]+)">/g)].map((m) => m[1]!);
  expect(
    preloaded.some((href) => /^\/assets\/app-layout-[\w-]+\.js$/.test(href)),
    preloaded.join(' '),
  ).toBe(true);
  expect(
    preloaded.some((href) => /^\/assets\/view-images-[\w-]+\.js$/.test(href)),
    preloaded.join(' '),
  ).toBe(true);
  // Another page, another list; a path no page has gets the not-found page's.
  const dashboard = await (await request.get('/dashboard')).text();
  expect(dashboard).toMatch(/href="\/assets\/dashboard-[\w-]+\.js"/);
  expect(dashboard).not.toMatch(/href="\/assets\/view-images-/);
  expect(await (await request.get('/no/such/page')).text()).toMatch(/href="\/assets\/not-found-[\w-]+\.js"/);

  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  await signInWithSession(page, patient.email, patient.password);
  const asked: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/assets/')) asked.push(new URL(r.url()).pathname);
  });
  await page.reload();
  await expect(page.getByRole('heading', { name: 'View Medical Images' })).toBeVisible();
  for (const href of preloaded)
    expect(
      asked.filter((a) => a === href),
      href,
    ).toHaveLength(1);
  expect(problems).toEqual([]);
});

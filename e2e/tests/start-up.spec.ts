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
/** How long the slow case holds back View Images' chunk: well past the delay. */
const CHUNK_DELAY_MS = 1_500;

type Attached = { what: 'fallback' | 'banner' | 'heading'; at: number };

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
        new MutationObserver((records) => {
          for (const record of records)
            for (const node of record.addedNodes) {
              if (!(node instanceof Element)) continue;
              for (const [what, selector] of kinds)
                if (node.matches(selector) || node.querySelector(selector))
                  window.attached.push({ what, at: performance.now() });
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
      expect(heading?.at, JSON.stringify(attached)).toBe(banner!.at);
    });

    test('a slow page chunk still shows the fallback, its spinner after the delay, then the page', async ({ page }) => {
      await page.route('**/assets/view-images-*.js', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, CHUNK_DELAY_MS));
        await route.continue();
      });
      await page.reload();
      const spinner = page.getByRole('progressbar', { name: 'Loading page' });
      await expect(spinner).toHaveClass(/MuiCircularProgress-root/);
      await screenshot(page, 'start-up-slow-chunk');
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

import { expect, test } from '@playwright/test';
import { registerViaApi, uniqueUser } from '../support/api.ts';
import { screenshot, signInWithSession } from '../support/ui.ts';

/**
 * Loading indicators wait PROGRESS_DELAY_MS before they animate (web/src/components/ui/delayed-progress.tsx,
 * docs/architecture.md › Frontend, "Loading indicators"): a load that ends sooner flashes nothing and
 * draws no frames for it; a slower one still shows its indicator, named as before.
 */
const PROGRESS_DELAY_MS = 500;
/** How long the test holds back the image list: well past the delay. */
const LIST_DELAY_MS = 2_500;

type Seen = { kind: 'waiting' | 'bar' | 'spinner'; label: string | null; at: number };

test('View Images: a slow image list names its load at once and shows the animated bar only after the delay', async ({
  page,
}) => {
  const patient = uniqueUser('patient');
  await registerViaApi(patient);
  await signInWithSession(page, patient.email, patient.password);
  await expect(page.getByRole('heading', { name: 'View Medical Images' })).toBeVisible();

  // Every progress bar or spinner attached from the next document on, with the time it came.
  await page.addInitScript(() => {
    const seen: Seen[] = [];
    (window as unknown as { progressSeen: Seen[] }).progressSeen = seen;
    new MutationObserver((records) => {
      for (const record of records)
        for (const node of record.addedNodes) {
          if (!(node instanceof Element)) continue;
          for (const el of [node, ...node.querySelectorAll('[role="progressbar"]')]) {
            if (el.getAttribute('role') !== 'progressbar' && !/Mui(Linear|Circular)Progress-root/.test(el.className))
              continue;
            const kind = el.classList.contains('MuiLinearProgress-root')
              ? 'bar'
              : el.classList.contains('MuiCircularProgress-root')
                ? 'spinner'
                : 'waiting';
            seen.push({ kind, label: el.getAttribute('aria-label'), at: performance.now() });
          }
        }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.route('**/api/upload/shared-images?**', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, LIST_DELAY_MS));
    await route.continue();
  });

  await page.reload();
  await expect(page.getByRole('progressbar', { name: 'Loading images' })).toHaveClass(/MuiLinearProgress-root/);
  await screenshot(page, 'view-images-slow-list');
  await expect(page.getByText('Nothing has been shared with you yet.')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('progressbar')).toHaveCount(0);

  const seen = await page.evaluate(() => (window as unknown as { progressSeen: Seen[] }).progressSeen);
  const waiting = seen.find((s) => s.kind === 'waiting' && s.label === 'Loading images');
  const bar = seen.find((s) => s.kind === 'bar' && s.label === 'Loading images');
  expect(waiting, JSON.stringify(seen)).toBeDefined();
  expect(bar, JSON.stringify(seen)).toBeDefined();
  // A timer never fires early: the bar comes at least the delay after its named placeholder.
  expect(bar!.at - waiting!.at).toBeGreaterThanOrEqual(PROGRESS_DELAY_MS - 1);
  // Nothing animated anywhere on the page came sooner than the delay after its own named placeholder.
  for (const shown of seen.filter((s) => s.kind !== 'waiting')) {
    const first = seen.find((s) => s.kind === 'waiting' && s.label === shown.label);
    expect(first, `${shown.kind} "${shown.label}" without a placeholder first`).toBeDefined();
    expect(shown.at - first!.at).toBeGreaterThanOrEqual(PROGRESS_DELAY_MS - 1);
  }
});

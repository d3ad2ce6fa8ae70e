import { type Worker, expect, test } from '@playwright/test';
import { registerViaApi, signInViaApi, uniqueUser } from '../support/api.ts';

/**
 * A signed-in start hands ICU's start-up to a worker (web/src/lib/warm-intl.ts, docs/architecture.md ›
 * Frontend, "Start-up"). It must be allowed by the page's policy (`worker-src 'self'`), run to its end
 * and end itself; a signed-out page starts none. Blocked or broken, nothing a user sees would change:
 * only the main thread would pay ICU's start-up again.
 */
const isWarmUp = (worker: Worker) => /\/assets\/warm-intl\.worker-[\w-]+\.js$/.test(worker.url());

test('a signed-in start runs the ICU warm-up worker, which ends itself; a signed-out page starts none', async ({
  page,
}) => {
  const policyErrors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|worker/i.test(msg.text())) policyErrors.push(msg.text());
  });
  const started: Worker[] = [];
  page.on('worker', (worker) => {
    if (isWarmUp(worker)) started.push(worker);
  });

  await page.goto('/login');
  await expect(page.getByRole('button', { name: 'Login' })).toBeVisible();
  expect(started, 'signed out: no warm-up').toHaveLength(0);

  const patient = uniqueUser('patient');
  await registerViaApi(patient);
  const session = await signInViaApi(patient.email, patient.password);
  await page.evaluate((value) => {
    localStorage.setItem(
      'persist:root',
      JSON.stringify({ session: JSON.stringify(value), _persist: JSON.stringify({ version: -1, rehydrated: true }) }),
    );
  }, session);
  const warmUp = page.waitForEvent('worker', { predicate: isWarmUp });
  await page.goto('/view-images');
  const worker = await warmUp;
  // It calls close() once a date is formatted; Playwright reports that as the worker's close.
  await new Promise<void>((resolve) => worker.once('close', () => resolve()));
  await expect(page.getByRole('heading', { name: 'View Medical Images' })).toBeVisible();
  expect(started).toHaveLength(1);
  expect(policyErrors).toEqual([]);
});

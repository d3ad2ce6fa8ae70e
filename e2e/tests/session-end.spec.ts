import { expect, test, type Page } from '@playwright/test';
import { registerViaApi, uniqueUser } from '../support/api.ts';
import { screenshot, signInWithSession, logoutThroughUi } from '../support/ui.ts';

/** The token the page's session holds (redux-persist's `persist:root`). */
const tokenOf = (page: Page) =>
  page.evaluate(
    () => (JSON.parse(JSON.parse(localStorage.getItem('persist:root')!).session) as { token: string }).token,
  );

/** Signed in on the patient's start page with the page's clock under the test's control. */
async function signedInWithClock(page: Page) {
  const u = uniqueUser('patient');
  await registerViaApi(u);
  await page.clock.install();
  const asked = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/auth/session');
  await signInWithSession(page, u.email, u.password);
  await expect(page).toHaveURL(/\/view-images/);
  // The watch has the session's idle limit (the default 30 minutes) once it has asked.
  await asked;
  return u;
}

test('a screen left alone warns a minute ahead, then logs out on the server too, and the login page says why', async ({
  page,
}) => {
  await signedInWithClock(page);
  const token = await tokenOf(page);
  // The default 30-minute limit: the page warns at 28:30 and logs out at 29:30, 30 s before the
  // server would (its idle clock may run up to the page's keep-alive interval ahead).
  await page.clock.fastForward('28:00');
  const warning = page.getByRole('dialog', { name: 'Are you still there?' });
  await expect(warning).toHaveCount(0);
  await page.clock.fastForward('00:31');
  await expect(warning).toBeVisible();
  await expect(warning).toContainText(/logged out in 0:[0-5]\d/);
  await screenshot(page, 'idle-warning');

  await page.clock.fastForward('01:01');
  await expect(page).toHaveURL(/\/login/);
  await expect(page.getByText('You were logged out because there was no activity for a while.')).toBeVisible();
  // Ended on the server, not only on the screen: the old token opens nothing.
  const after = await page.request.get('/api/users/profile', { headers: { authorization: `Bearer ${token}` } });
  expect(after.status()).toBe(401);
  expect(await page.evaluate(() => localStorage.getItem('persist:root'))).not.toContain(token);
});

test('Stay logged in keeps the session, and a user at the keyboard is never warned', async ({ page }) => {
  await signedInWithClock(page);
  await page.clock.fastForward('28:40');
  const warning = page.getByRole('dialog', { name: 'Are you still there?' });
  await expect(warning).toBeVisible();
  // Answered before the count starts: a late answer would otherwise stand for the first key's.
  const keptAlive = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/auth/session');
  await warning.getByRole('button', { name: 'Stay logged in' }).click();
  const stayed = await keptAlive;
  expect(stayed.status()).toBe(200);
  await stayed.finished();
  await expect(warning).toHaveCount(0);

  // Twenty-nine minutes more, with a key pressed every few minutes: no warning, still signed in, and
  // each key press a minute or more after the last question keeps the session alive on the server.
  let keptAliveSince = 0;
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/api/auth/session') keptAliveSince += 1;
  });
  for (let i = 0; i < 10; i++) {
    await page.clock.fastForward('02:55');
    // Each key's own question answered before the next key (minutes apart for the page, milliseconds
    // for the test; RTK Query starts no question while the same one is out).
    const asked = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/auth/session');
    await page.keyboard.press('Shift');
    const answer = await (await asked).response();
    expect(answer?.status()).toBe(200);
    await answer?.finished();
  }
  await expect(warning).toHaveCount(0);
  expect(keptAliveSince).toBe(10);
  await page.reload();
  await expect(page).toHaveURL(/\/view-images/);
});

test('logging out in one tab logs out the other tabs of the browser', async ({ context }) => {
  const first = await context.newPage();
  const u = uniqueUser('patient');
  await registerViaApi(u);
  await signInWithSession(first, u.email, u.password);
  const second = await context.newPage();
  await second.goto('/view-images');
  await expect(second.getByRole('button', { name: 'Logout' })).toBeVisible();

  await logoutThroughUi(first);
  await expect(second).toHaveURL(/\/login/);
  await expect(second.getByText('Your session has ended. Please log in again.')).toBeVisible();
});

import { type Page, expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { signInViaApi } from './api.ts';
import { E2E } from './env.ts';
import { mailCount, waitForCode } from './mail.ts';

/** Types a 6-digit code into the digit boxes (they advance on each digit). */
export async function enterCode(page: Page, code: string) {
  for (const [i, digit] of [...code].entries()) await page.getByLabel(`Digit ${i + 1} of 6`).fill(digit);
}

/** Password, then the mailed second factor, through the screens. */
export async function loginThroughUi(page: Page, email: string, password: string) {
  const before = mailCount(email);
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/verify-account/);
  await enterCode(page, await waitForCode(email, before));
  await page.getByRole('button', { name: 'Verify' }).click();
  // Signed in once the app leaves the code page for the start page. A caller that navigated straight
  // away would abort the verify request and land on /login (stored-content.spec did, 1 run in 3).
  await expect(page).not.toHaveURL(/\/verify-account/, { timeout: 20_000 });
}

/**
 * Signs in through the API (password, then the mailed code) and hands the session to the page the
 * way a reload finds it: the store persists only the session, under `persist:root`
 * (web/src/lib/store.ts). Then opens the role's start page. For tests about other screens: it skips
 * the form's two timed redirects (3 s a sign-in); sign-in itself is tested through the form
 * (auth.spec, screens.spec, screens-walk.spec).
 */
export async function signInWithSession(page: Page, email: string, password: string) {
  const session = await signInViaApi(email, password);
  // A static file of the app's origin: its storage, without the app running and persisting its own state.
  await page.goto('/favicon.svg');
  await page.evaluate((value) => {
    localStorage.setItem(
      'persist:root',
      JSON.stringify({ session: JSON.stringify(value), _persist: JSON.stringify({ version: -1, rehydrated: true }) }),
    );
  }, session);
  await page.goto(session.user.role === 'patient' ? '/view-images' : '/dashboard');
}

export async function logoutThroughUi(page: Page) {
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login/);
}

/**
 * Full-page screenshot into e2e/screenshots/<name>-<width>.png, to look at after the run. Not in CI
 * (unless E2E_SCREENSHOTS=1): its clone is deleted when the run ends, so the captures were CPU spent
 * for no reader. The page is scrolled to the top either way, so that the steps after it run alike.
 */
export async function screenshot(page: Page, name: string) {
  const width = page.viewportSize()?.width ?? 0;
  // A page scrolled by the last action would draw its fixed header part-way down the capture.
  await page.evaluate(() => window.scrollTo(0, 0));
  if (process.env.CI && process.env.E2E_SCREENSHOTS !== '1') return;
  mkdirSync(E2E.screenshotDir, { recursive: true });
  await page.screenshot({ path: `${E2E.screenshotDir}${name}-${width}.png`, fullPage: true });
}

/** Closes the toasts still on screen, so that they neither cover the page nor join its axe check. */
export async function dismissToasts(page: Page) {
  const close = page.locator('.Toastify__close-button');
  while ((await close.count()) > 0) {
    await close
      .first()
      .click({ timeout: 2_000 })
      .catch(() => {});
    await page.waitForTimeout(150);
  }
}

import { type Page, expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
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
}

export async function logoutThroughUi(page: Page) {
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login/);
}

/** Full-page screenshot into e2e/screenshots/<name>-<width>.png, to look at after the run. */
export async function screenshot(page: Page, name: string) {
  mkdirSync(E2E.screenshotDir, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  // A page scrolled by the last action would draw its fixed header part-way down the capture.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${E2E.screenshotDir}${name}-${width}.png`, fullPage: true });
}

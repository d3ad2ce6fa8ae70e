import { type Page, expect, test } from '@playwright/test';
import { registerViaApi, uniqueUser } from '../support/api.ts';
import { E2E } from '../support/env.ts';
import { mailCount, waitForCode, waitForResetToken } from '../support/mail.ts';
import { enterCode, screenshot } from '../support/ui.ts';
import { expectAccessible } from '../support/accessibility.ts';

/**
 * Issue 17, item 10: the password rules of `docs/product.md` › Validation rules show while typing, from the
 * same code the server runs, on every new-password field; a password they refuse is not sent.
 */
const viewports = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

const rules = (page: Page) => page.getByRole('list', { name: 'Rules for your new password' });
const rule = (page: Page, name: 'length' | 'common' | 'identity' | 'repeated') =>
  rules(page).locator(`[data-rule="${name}"]`);
const strength = (page: Page) => page.getByTestId('password-strength');

/** The checklist's hidden state words once made these pages scroll sideways. */
async function expectNoSidewaysScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** Types like a person, so the checklist sees every intermediate value. */
async function retype(page: Page, label: RegExp, value: string) {
  const field = page.getByLabel(label);
  await field.clear();
  await field.pressSequentially(value, { delay: 15 });
}

for (const viewport of viewports) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test('register: the checklist and meter follow the typing, and a refused password is not sent', async ({
      page,
    }) => {
      const u = uniqueUser('patient');
      await page.goto('/register');
      await page.getByRole('radio', { name: /^Patient/ }).check();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByLabel('First name').fill(u.firstname);
      await page.getByLabel('Last name').fill(u.lastname);
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByLabel('Username').fill(u.username);
      await page.getByLabel('Email').fill(u.email);

      await expect(rule(page, 'length')).toHaveAttribute('data-state', 'unmet');
      await expect(strength(page)).toHaveText('Strength: —');

      await retype(page, /^Password/, 'plum-orb');
      await expect(rule(page, 'length')).toHaveAttribute('data-state', 'unmet');
      await expect(rule(page, 'length')).toContainText('not met');
      await expect(strength(page)).toHaveText('Strength: Too weak');

      await retype(page, /^Password/, 'qwertyuiop');
      await expect(rule(page, 'length')).toHaveAttribute('data-state', 'met');
      await expect(rule(page, 'common')).toHaveAttribute('data-state', 'unmet');

      await retype(page, /^Password/, `${u.username}-secret-1`);
      await expect(rule(page, 'common')).toHaveAttribute('data-state', 'met');
      await expect(rule(page, 'identity')).toHaveAttribute('data-state', 'unmet');
      await page.getByLabel('Confirm password').fill(`${u.username}-secret-1`);
      await screenshot(page, 'password-rules-register-refused');
      await expectAccessible(page);
      await expectNoSidewaysScroll(page);

      // Refused here without a round trip; the field says why.
      let registerCalls = 0;
      page.on('request', (request) => {
        if (request.url().endsWith('/api/auth/register')) registerCalls += 1;
      });
      await page.getByRole('button', { name: 'Register' }).click();
      await expect(page.getByText('Choose a password that meets every rule below.')).toBeVisible();
      expect(registerCalls).toBe(0);

      await retype(page, /^Password/, 'Plum-orbit-cascade-47');
      await expect(rules(page).locator('[data-state="met"]')).toHaveCount(4);
      await expect(strength(page)).toHaveText('Strength: Strong');
      await expect(page.getByText('Choose a password that meets every rule below.')).toBeHidden();
      // The summary is announced once the typing settles.
      await expect(page.getByRole('status').filter({ hasText: '4 of 4 password rules met' })).toHaveCount(1);
      await page.getByLabel('Confirm password').fill('Plum-orbit-cascade-47');
      await screenshot(page, 'password-rules-register');

      await page.getByRole('button', { name: 'Register' }).click();
      await expect(page.getByText('Registration successful!').first()).toBeVisible();
      expect(registerCalls).toBe(1);
    });

    test('reset by link: the rules show while typing; the e-mail/username rule is left to the server', async ({
      page,
    }) => {
      const u = uniqueUser('patient');
      await registerViaApi(u);
      const before = mailCount(u.email);
      await fetch(`${E2E.baseUrl}/api/auth/forgot-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: u.email }),
      });
      const token = await waitForResetToken(u.email, before);
      await page.goto(`/reset-password?token=${encodeURIComponent(token)}`);

      await retype(page, /^New password/, 'aaaaaaaaaaaa');
      await expect(rule(page, 'repeated')).toHaveAttribute('data-state', 'unmet');
      await expect(strength(page)).toHaveText('Strength: Too weak');

      // The link does not say whose account it is: the meter stops at "Good" and the server has the last word.
      await retype(page, /^New password/, `${u.username}-secret-1`);
      await expect(rule(page, 'identity')).toHaveAttribute('data-state', 'unknown');
      await expect(rule(page, 'identity')).toContainText('checked when you submit');
      await expect(strength(page)).not.toHaveText('Strength: Strong');
      await page.getByLabel(/Confirm/).fill(`${u.username}-secret-1`);
      await page.getByRole('button', { name: 'Reset Password' }).click();
      await expect(page.getByText(/must not contain your e-mail or username/).first()).toBeVisible();

      await retype(page, /^New password/, 'Plum-orbit-cascade-47');
      // The refusal's toast and field line go once the password is being changed.
      await expect(page.getByText(/must not contain your e-mail or username/)).toHaveCount(0);
      await expect(page.getByLabel(/^New password/)).toHaveAccessibleDescription(/^3 of 4 password rules met/);
      await expect(rules(page).locator('[data-state="met"]')).toHaveCount(3);
      await expect(strength(page)).toHaveText('Strength: Good');
      await page.getByLabel(/Confirm/).fill('Plum-orbit-cascade-47');
      await screenshot(page, 'password-rules-reset');
      await expectAccessible(page);
      await expectNoSidewaysScroll(page);
      await page.getByRole('button', { name: 'Reset Password' }).click();
      await expect(page.getByText('Password reset successfully!').first()).toBeVisible();
    });

    test('forgot password with a code: the e-mail entered counts for the e-mail/username rule', async ({ page }) => {
      const u = uniqueUser('patient');
      await registerViaApi(u);
      const before = mailCount(u.email);
      await page.goto('/forgot-password');
      await page.getByLabel('Email').fill(u.email);
      await page.getByRole('button', { name: 'Send Code' }).click();
      await enterCode(page, await waitForCode(u.email, before));

      await retype(page, /^New password/, `my ${u.username} phrase`);
      await expect(rule(page, 'identity')).toHaveAttribute('data-state', 'unmet');
      await retype(page, /^New password/, 'Plum-orbit-cascade-47');
      await expect(rule(page, 'identity')).toHaveAttribute('data-state', 'unknown');
      await expect(rule(page, 'length')).toHaveAttribute('data-state', 'met');
      await expectNoSidewaysScroll(page);
      await screenshot(page, 'password-rules-forgot');
    });
  });
}

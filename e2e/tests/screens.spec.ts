import { expect, test } from '@playwright/test';
import { registerViaApi, uniqueUser } from '../support/api.ts';
import { loginThroughUi, screenshot } from '../support/ui.ts';
import { expectAccessible } from '../support/accessibility.ts';

const widths = [1280, 390];

for (const width of widths) {
  test.describe(`public screens at ${width} px`, () => {
    test.use({ viewport: { width, height: width > 800 ? 900 : 844 } });

    test('landing page shows the four promises, the figures and the footer', async ({ page }) => {
      await page.goto('/');
      for (const text of ['500K+', '24/7', '1M+']) await expect(page.getByText(text).first()).toBeVisible();
      await expect(page.getByRole('link', { name: /share demo/i }).first()).toBeVisible();
      await screenshot(page, 'landing');
      await expectAccessible(page);
    });

    test('the landing page is complete before any script runs, and the app takes it over in place at the first interaction', async ({
      page,
      browser,
    }) => {
      const heading = { level: 1, name: /shared securely with exactly the right people/ } as const;
      // Without scripts at all: the static copy, styled, its links plain links.
      const noScript = await browser.newContext({ viewport: page.viewportSize()! });
      await noScript.route('**/assets/*.js', (route) => route.abort());
      const still = await noScript.newPage();
      await still.goto('/');
      await expect(still.getByRole('heading', heading)).toBeVisible();
      const before = await still.getByRole('heading', heading).boundingBox();
      await screenshot(still, 'landing-before-script');
      await still.getByRole('banner').getByRole('link', { name: 'Login' }).click();
      await expect(still).toHaveURL(/\/login$/);
      await noScript.close();

      // With them, untouched: once drawn, the app's entry is fetched but not run.
      const refused: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error' && /content security policy/i.test(msg.text())) refused.push(msg.text());
      });
      const prefetched = page.waitForResponse(/\/assets\/index-[\w-]+\.js$/);
      await page.goto('/');
      await prefetched;
      await page.waitForTimeout(300);
      await expect(page.locator('#prerendered')).toHaveCount(1);
      await expect(page.locator('#root')).toBeEmpty();

      // The first pointer move starts it: one heading, where the copy had it, and no style refused by the CSP.
      await page.mouse.move(20, 300);
      await expect(page.locator('#prerendered')).toHaveCount(0);
      await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
      expect(await page.getByRole('heading', heading).boundingBox()).toEqual(before);
      expect(refused).toEqual([]);
    });

    test('share demo copies a link', async ({ page, context }) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.goto('/share-image');
      await expect(page.locator('img')).toHaveCount(4);
      await page
        .getByRole('button', { name: /copy link/i })
        .first()
        .click();
      await expect(page.getByText('Link copied to clipboard!')).toBeVisible();
      await screenshot(page, 'share-image');
      await expectAccessible(page);
    });

    test('login, register steps, forgot password, verify and reset screens', async ({ page }) => {
      // Each page is a lazily loaded chunk: its heading, not the spinner before it, is what is captured and checked.
      await page.goto('/login');
      await expect(page.getByText('Welcome back! Glad to see you again!')).toBeVisible();
      await screenshot(page, 'login');
      await expectAccessible(page);

      await page.goto('/register');
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await screenshot(page, 'register-1-role');
      await expectAccessible(page);
      await page.getByRole('button', { name: 'Next' }).click();
      await expect(page.getByText('Please select a role to continue.')).toBeVisible();
      await page.getByRole('radio', { name: /^Health Provider/ }).check();
      await page.getByRole('button', { name: 'Next' }).click();
      await screenshot(page, 'register-2-personal');
      await page.getByRole('button', { name: 'Next' }).click();
      await expect(page.getByLabel('License number')).toBeVisible();
      await screenshot(page, 'register-3-medical');
      await page.getByRole('button', { name: 'Next' }).click();
      await screenshot(page, 'register-4-security');

      await page.goto('/forgot-password');
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await screenshot(page, 'forgot-password');
      await expectAccessible(page);
      await page.goto('/verify-account');
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await screenshot(page, 'verify-account');
      await expectAccessible(page);
      await page.goto('/reset-password?token=example-token-value-123456');
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await screenshot(page, 'reset-password');
      await expectAccessible(page);
      await page.goto('/no-such-page');
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await screenshot(page, 'not-found');
    });
  });
}

test.describe('signed-in shell', () => {
  for (const width of widths) {
    test(`shell with the role-aware menu at ${width} px`, async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
      const u = uniqueUser('patient');
      await registerViaApi(u);
      await loginThroughUi(page, u.email, u.password);
      await expect(page).toHaveURL(/\/view-images/, { timeout: 10_000 });
      if (width < 1024) {
        await page.getByRole('button', { name: 'Open menu' }).click();
      }
      const menu = page.getByRole('navigation', { name: 'Main menu' }).last();
      await expect(menu.getByRole('link', { name: 'View Images' })).toBeVisible();
      await expect(menu.getByRole('link', { name: 'Upload Image' })).toHaveCount(0);
      await expect(menu.getByRole('link', { name: 'Settings' })).toHaveCount(0);
      await screenshot(page, 'shell-patient');
      await expectAccessible(page);
    });
  }
});

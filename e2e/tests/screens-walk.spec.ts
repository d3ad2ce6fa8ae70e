import { type Page, expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser, uploadFileViaApi } from '../support/api.ts';
import { E2E } from '../support/env.ts';
import { mailCount, waitForCode } from '../support/mail.ts';
import { dismissToasts, screenshot, signInWithSession } from '../support/ui.ts';
import { expectAccessible } from '../support/accessibility.ts';

/**
 * Issue 17, "the screens as people use them": what a walk through every screen as patient,
 * provider and admin found, each at the two widths of that walk.
 */
const viewports = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

const boxes = (page: Page) => page.getByRole('group', { name: 'Verification code' }).getByRole('textbox');

async function boxValues(page: Page): Promise<string> {
  return (await boxes(page).evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).join('');
}

/** A paste as the browser delivers it: a ClipboardEvent carrying the text. */
async function pasteInto(page: Page, index: number, text: string) {
  await boxes(page)
    .nth(index)
    .evaluate((input, pasted) => {
      const data = new DataTransfer();
      data.setData('text/plain', pasted);
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, text);
}

async function signIn(page: Page, email: string, password: string, startPage: RegExp) {
  await signInWithSession(page, email, password);
  await expect(page).toHaveURL(startPage, { timeout: 10_000 });
  await dismissToasts(page);
}

async function newPatient(): Promise<ReturnType<typeof uniqueUser>> {
  const u = uniqueUser('patient');
  await registerViaApi(u);
  return u;
}

async function newProvider(): Promise<ReturnType<typeof uniqueUser>> {
  const u = uniqueUser('healthProvider');
  await approveViaApi(await registerViaApi(u));
  return u;
}

for (const viewport of viewports) {
  test.describe(`screens as people use them at ${viewport.width} px`, () => {
    test.use({ viewport });

    test('the code boxes: retyping, Backspace across boxes, paste and one-time-code autofill', async ({ page }) => {
      const u = await newPatient();
      const before = mailCount(u.email);
      await page.goto('/login');
      await page.getByLabel('Email').fill(u.email);
      await page.getByLabel(/^Password/).fill(u.password);
      await page.getByRole('button', { name: 'Login' }).click();
      await expect(page).toHaveURL(/\/verify-account/);
      const code = await waitForCode(u.email, before);
      await expect(boxes(page)).toHaveCount(6);
      await expect(boxes(page).first()).toHaveAttribute('autocomplete', 'one-time-code');

      // A typo in the last digit, then the whole code typed again over it from the first box.
      const typo = code.slice(0, 5) + String((Number(code[5]) + 1) % 10);
      await boxes(page).first().click();
      await page.keyboard.type(typo);
      expect(await boxValues(page)).toBe(typo);
      await boxes(page).first().click();
      await page.keyboard.type(code);
      expect(await boxValues(page)).toBe(code);
      await expect(boxes(page).nth(5)).toBeFocused();

      // Backspace walks back over three boxes; typing goes on from there.
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Backspace');
      expect(await boxValues(page)).toBe(code.slice(0, 3));
      await expect(boxes(page).nth(3)).toBeFocused();
      await page.keyboard.type(code.slice(3));
      expect(await boxValues(page)).toBe(code);

      // Pasted into any box, a whole code fills all six from the first.
      await pasteInto(page, 4, ` ${code.slice(0, 3)} ${code.slice(3)} `);
      expect(await boxValues(page)).toBe(code);

      // The phone's one-time-code autofill puts the whole code into the first box at once.
      await boxes(page).first().fill(typo);
      expect(await boxValues(page)).toBe(typo);
      await boxes(page).first().fill(code);
      expect(await boxValues(page)).toBe(code);

      await screenshot(page, 'walk-otp-filled');
      await page.getByRole('button', { name: 'Verify' }).click();
      await expect(page).toHaveURL(/\/view-images/, { timeout: 10_000 });
    });

    test('a signed-in patient on the landing page and at /login is offered the way back into the app', async ({
      page,
    }) => {
      const u = await newPatient();
      await signIn(page, u.email, u.password, /\/view-images/);

      await page.goto('/');
      const header = page.getByRole('banner');
      await expect(header.getByRole('link', { name: 'View Images' })).toBeVisible();
      await expect(header.getByRole('button', { name: 'Logout' })).toBeVisible();
      await expect(header.getByRole('link', { name: 'Login' })).toHaveCount(0);
      await expect(header.getByRole('link', { name: 'Register' })).toHaveCount(0);
      await expect(page.getByRole('link', { name: 'Create an account' })).toHaveCount(0);
      await expect(page.getByRole('link', { name: 'Go to View Images' }).first()).toBeVisible();
      await screenshot(page, 'walk-landing-signed-in');
      await expectAccessible(page);

      await page.goto('/login');
      await expect(page).toHaveURL(/\/view-images/);
      await page.goto('/register');
      await expect(page).toHaveURL(/\/view-images/);

      // The side menu's Home, then back in through the header.
      await page.goto('/');
      await header.getByRole('link', { name: 'View Images' }).click();
      await expect(page).toHaveURL(/\/view-images/);
      await expect(page.getByRole('heading', { level: 1, name: 'View Medical Images' })).toBeVisible();

      // Logout from the landing header ends the session.
      await page.goto('/');
      await header.getByRole('button', { name: 'Logout' }).click();
      await expect(page).toHaveURL(/\/login/);
      await expect(page.getByText('Welcome back! Glad to see you again!')).toBeVisible();
      await page.goto('/');
      await expect(page.getByRole('banner').getByRole('link', { name: 'Login' })).toBeVisible();
    });

    test('a signed-in provider sees Dashboard on the landing header and goes there from /login', async ({ page }) => {
      const u = await newProvider();
      await signIn(page, u.email, u.password, /\/dashboard/);
      await page.goto('/');
      await expect(page.getByRole('banner').getByRole('link', { name: 'Dashboard' })).toBeVisible();
      await page.goto('/login');
      await expect(page).toHaveURL(/\/dashboard/);
    });

    test('a patient at a page of another role sees one friendly "not available" page, not a form', async ({ page }) => {
      const u = await newPatient();
      await signIn(page, u.email, u.password, /\/view-images/);
      for (const path of ['/upload', '/audit-logs', '/roles-permissions', '/appsettings', '/admin-dashboard']) {
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1, name: 'Not available for your role' })).toBeVisible();
        await expect(page.getByText('not part of what a Patient account can do')).toBeVisible();
        await expect(page.getByRole('button', { name: 'Upload Image' })).toHaveCount(0);
        await expect(page.getByText(/Error data|not allowed/i)).toHaveCount(0);
        if (path === '/upload' || path === '/audit-logs') await screenshot(page, `walk-not-available-${path.slice(1)}`);
      }
      await expectAccessible(page);
      await page.getByRole('link', { name: 'Go to View Images' }).click();
      await expect(page).toHaveURL(/\/view-images/);
    });

    test('a provider at admin pages sees the same "not available" page; their own pages open', async ({ page }) => {
      const u = await newProvider();
      await signIn(page, u.email, u.password, /\/dashboard/);
      for (const path of ['/roles-permissions', '/appsettings', '/admin-dashboard']) {
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1, name: 'Not available for your role' })).toBeVisible();
        await expect(page.getByText('not part of what a Health Provider account can do')).toBeVisible();
      }
      await page.goto('/audit-logs');
      await expect(page.getByRole('heading', { level: 1, name: 'Audit Logs' })).toBeVisible();
      await page.goto('/upload');
      await expect(page.getByRole('heading', { level: 1, name: 'Upload Medical Image' })).toBeVisible();
    });

    test('the admin dashboard activates a pending provider with "Activate"', async ({ page }) => {
      const pending = uniqueUser('healthProvider');
      await registerViaApi(pending);
      const name = `${pending.firstname} ${pending.lastname}`;
      await signIn(page, E2E.admin.email, E2E.admin.password, /\/dashboard/);
      await page.goto('/admin-dashboard');
      const waiting = page.getByRole('list', { name: 'Providers awaiting activation' });
      await expect(waiting).toBeVisible();
      await expect(page.getByRole('button', { name: /approve/i })).toHaveCount(0);
      await screenshot(page, 'walk-admin-dashboard');
      const activate = waiting.getByRole('button', { name: `Activate ${name}` });
      // The card previews the five oldest pending providers; other specs of a full run may fill it.
      if ((await activate.count()) > 0) {
        await expect(activate).toHaveText('Activate');
        await activate.click();
        await expect(page.getByText(`${name} activated`)).toBeVisible();
      } else {
        await expect(waiting.getByRole('button', { name: /^Activate / }).first()).toHaveText('Activate');
      }
    });
  });
}

test.describe('DICOM viewer on a bright image', () => {
  let imageId = '';
  let token = '';
  let provider: ReturnType<typeof uniqueUser>;
  const caption = 'Chest CT, follow-up after three months';

  test.beforeAll(async () => {
    provider = await newProvider();
    token = (await signInViaApi(provider.email, provider.password)).token;
    const file = 'ct_implicit_le_16bit_signed.dcm';
    const bytes = readFileSync(new URL(`../../server/test/fixtures/dicom/${file}`, import.meta.url));
    imageId = await uploadFileViaApi(token, { caption, name: file, type: 'application/dicom', data: bytes });
  });

  for (const viewport of viewports) {
    test(`overlay stays readable on a white image at ${viewport.width} px`, async ({ page }) => {
      test.setTimeout(120_000);
      await page.setViewportSize(viewport);
      await signIn(page, provider.email, provider.password, /\/dashboard/);
      await page.goto(`/dicom/${imageId}`);
      await expect(page.getByTestId('dicom-viewport')).toHaveAttribute('data-state', 'rendered', { timeout: 30_000 });
      // Inverted, the CT's black air around the body turns white under the overlay.
      await page.getByRole('button', { name: 'Invert' }).click();
      await expect(page.getByRole('button', { name: 'Invert' })).toHaveAttribute('aria-pressed', 'true');
      const overlay = page.getByTestId('dicom-overlay');
      await expect(overlay).toBeVisible();

      // White text over the overlay's own plate composited on pure white: WCAG AA needs 4.5:1.
      const contrast = await overlay.evaluate((el) => {
        const style = getComputedStyle(el);
        const channels = (css: string) => (css.match(/[\d.]+/g) ?? []).map(Number);
        // rgb(r, g, b) is opaque; rgba(r, g, b, a) is drawn over the image, here pure white.
        const [r = 255, g = 255, b = 255, a = 1] = channels(style.backgroundColor);
        const over = (c: number) => c * a + 255 * (1 - a);
        const lum = (c: number) => {
          const s = c / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        };
        const plate = 0.2126 * lum(over(r)) + 0.7152 * lum(over(g)) + 0.0722 * lum(over(b));
        const [tr = 0, tg = 0, tb = 0] = channels(style.color);
        const text = 0.2126 * lum(tr) + 0.7152 * lum(tg) + 0.0722 * lum(tb);
        return (Math.max(plate, text) + 0.05) / (Math.min(plate, text) + 0.05);
      });
      expect(contrast).toBeGreaterThanOrEqual(4.5);
      await screenshot(page, 'walk-dicom-bright');
    });

    test(`shows the image's caption at ${viewport.width} px`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await signIn(page, provider.email, provider.password, /\/dashboard/);
      await page.goto(`/dicom/${imageId}`);
      await expect(page.getByTestId('dicom-caption')).toHaveText(caption);
    });
  }
});

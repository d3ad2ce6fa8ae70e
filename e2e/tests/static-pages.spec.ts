import { type Page, expect, test } from '@playwright/test';
import { registerViaApi, uniqueUser } from '../support/api.ts';
import { mailCount, waitForCode } from '../support/mail.ts';
import { enterCode, screenshot, signInWithSession } from '../support/ui.ts';
import { expectAccessible } from '../support/accessibility.ts';

/**
 * The landing and login pages are static HTML first; the app starts at the visitor's first interaction
 * (or at once when a session is stored) and takes the page over (docs/decisions.md › Static first
 * pages). These tests hold the app's entry back to stand in for a slow phone link.
 */
const viewports = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];
const APP_ENTRY = /\/assets\/index-[\w-]+\.js$/;

/** Holds every request for the app's entry until `release()`: the app cannot run before then. */
async function holdTheApp(page: Page) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const requested: string[] = [];
  await page.route(APP_ENTRY, async (route) => {
    requested.push(route.request().url());
    await released;
    await route.continue();
  });
  return { release, requested };
}

/** Every URL the page asked the server for (a form's own GET submit would show here). */
function requestsOf(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  return urls;
}

for (const viewport of viewports) {
  test.describe(`static first pages at ${viewport.width} px`, () => {
    test.use({ viewport });

    test('the login form works before the app runs: what was typed carries over, and a submit waits for the app', async ({
      page,
    }) => {
      const u = uniqueUser('patient');
      await registerViaApi(u);
      const urls = requestsOf(page);
      const app = await holdTheApp(page);
      await page.goto('/login');
      await expect(page.locator('#prerendered')).toHaveCount(1);
      await expect(page.getByRole('heading', { name: 'Welcome back! Glad to see you again!' })).toBeVisible();
      // The static form has the focus the page asks for, and is accessible as it is.
      await expect(page.getByLabel('Email')).toBeFocused();
      await expectAccessible(page);

      // Typed with real key presses (which start the app) while the app cannot run yet.
      await page.keyboard.type(u.email);
      await page.getByLabel(/^Password/).click();
      await page.keyboard.type(u.password);
      await expect.poll(() => app.requested.length).toBeGreaterThan(0);
      await screenshot(page, 'static-login-typed');
      const before = mailCount(u.email);
      await page.keyboard.press('Enter');
      // The browser's own submit never happens: no GET with the fields in the URL.
      await page.waitForTimeout(300);
      await expect(page).toHaveURL(/\/login$/);
      expect(urls.filter((url) => url.includes('?') && new URL(url).pathname === '/login')).toEqual([]);

      // The app arrives, takes the page over with what was typed, and sends the held submit.
      app.release();
      await expect(page).toHaveURL(/\/verify-account/);
      await expect(page.locator('#prerendered')).toHaveCount(0);
      await enterCode(page, await waitForCode(u.email, before));
      await page.getByRole('button', { name: 'Verify' }).click();
      await expect(page).toHaveURL(/\/view-images/, { timeout: 20_000 });
      expect(urls.some((url) => url.includes(encodeURIComponent(u.password)) || url.includes(u.password))).toBe(false);
    });

    test('typing goes on while the app takes the login page over: no key press is lost', async ({ page }) => {
      const u = uniqueUser('patient');
      await registerViaApi(u);
      const app = await holdTheApp(page);
      await page.goto('/login');
      await page.getByLabel('Email').click();
      const [name, domain] = u.email.split('@') as [string, string];
      await page.keyboard.type(`${name}@`);
      // The app runs now; the visitor is still in the static field, so the page stays as it is.
      const loaded = page.waitForResponse(APP_ENTRY);
      app.release();
      await loaded;
      // Rendered behind the static copy, and waiting for the visitor to leave it.
      await expect(page.locator('#root form')).toHaveCount(1);
      await expect(page.locator('#prerendered')).toHaveCount(1);
      await page.keyboard.type(domain);
      await page.keyboard.press('Tab');
      await page.keyboard.type(u.password);
      // Still the static copy (the app, rendered behind it, waits for the visitor to leave it): every key landed.
      const copy = page.locator('#prerendered');
      await expect(copy.getByLabel('Email')).toHaveValue(u.email);
      await expect(copy.getByLabel(/^Password/)).toHaveValue(u.password);
      const before = mailCount(u.email);
      await page.getByRole('button', { name: 'Login' }).click();
      await expect(page).toHaveURL(/\/verify-account/);
      await expect(page.locator('#prerendered')).toHaveCount(0);
      expect(await waitForCode(u.email, before)).toMatch(/^\d{6}$/);
    });

    test('without its script the static login form sends nothing, not even by Enter', async ({ browser }) => {
      const noScript = await browser.newContext({ viewport });
      await noScript.route('**/assets/*.js', (route) => route.abort());
      const page = await noScript.newPage();
      const urls = requestsOf(page);
      const posts: string[] = [];
      page.on('request', (request) => {
        if (request.method() !== 'GET') posts.push(request.url());
      });
      await page.goto('/login');
      await page.getByLabel('Email').fill('ada@example.org');
      await page.getByLabel(/^Password/).fill('a long passphrase');
      await page.keyboard.press('Enter');
      await expect(page.getByRole('button', { name: 'Login' })).toBeDisabled();
      await page.waitForTimeout(300);
      await expect(page).toHaveURL(/\/login$/);
      expect(posts).toEqual([]);
      expect(urls.filter((url) => url.includes('passphrase') || url.includes('ada%40'))).toEqual([]);
      await noScript.close();
    });

    test('after the server ended a session, the login page starts the app at once and says why', async ({ page }) => {
      await page.goto('/favicon.svg');
      await page.evaluate(() => sessionStorage.setItem('medshare:sessionEnded', '1'));
      await page.goto('/login');
      await expect(page.locator('#prerendered')).toHaveCount(0);
      await expect(page.getByText('Your session has ended. Please log in again.')).toBeVisible();
      // The page's autofocus went with it to the app's own field.
      await expect(page.getByLabel('Email')).toBeFocused();
    });

    test('a signed-in visitor at /login goes to their start page, which the static copy never covers', async ({
      page,
    }) => {
      const u = uniqueUser('patient');
      await registerViaApi(u);
      await signInWithSession(page, u.email, u.password);
      await page.goto('/login');
      await expect(page).toHaveURL(/\/view-images/);
      await expect(page.getByRole('heading', { level: 1, name: 'View Medical Images' })).toBeVisible();
      await expect(page.locator('#prerendered')).toHaveCount(0);
      await expect(page.getByText('Welcome back! Glad to see you again!')).toHaveCount(0);
    });
  });
}

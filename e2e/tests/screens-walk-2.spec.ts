import { type Locator, type Page, expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser, uploadFileViaApi } from '../support/api.ts';
import { E2E } from '../support/env.ts';
import { dismissToasts, screenshot, signInWithSession } from '../support/ui.ts';

/**
 * Issue 17, "the screens as people use them", second part: the production bundle, the settings
 * table, empty states and counts, tables and cards on a phone. Each at the walk's two widths.
 */
const viewports = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

const PHOTO = new URL('../../server/test/fixtures/other/photo_hopper_portrait.jpg', import.meta.url);

async function api<T>(method: string, path: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(`${E2E.baseUrl}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as { data: T };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const uploadViaApi = (token: string, caption: string, patientId?: string): Promise<string> =>
  uploadFileViaApi(token, { caption, name: 'portrait.jpg', type: 'image/jpeg', data: readFileSync(PHOTO), patientId });

async function signIn(page: Page, email: string, password: string) {
  await signInWithSession(page, email, password);
  await expect(page).toHaveURL(/\/(dashboard|view-images)/, { timeout: 10_000 });
  await dismissToasts(page);
}

/** The element's box lies inside the viewport horizontally: nothing to scroll sideways to reach it. */
async function expectWithinViewportWidth(page: Page, locator: Locator) {
  const box = await locator.boundingBox();
  expect(box, 'element is rendered').not.toBeNull();
  const width = page.viewportSize()!.width;
  expect(box!.x, 'left edge on screen').toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width, 'right edge on screen').toBeLessThanOrEqual(width + 0.5);
}

/**
 * Nothing inside the element reaches past its right edge, and nothing in it scrolls sideways:
 * no clipped buttons, no table to drag. (Clipped-by-design parts such as an outlined field's
 * hidden legend text are not boxes that stick out, so they do not count.)
 */
async function expectNoHorizontalOverflow(locator: Locator) {
  const overflow = await locator.evaluate((root) => {
    const right = root.getBoundingClientRect().right;
    const found: string[] = [];
    for (const el of [root, ...root.querySelectorAll('*')]) {
      if (!(el instanceof HTMLElement)) continue;
      const style = getComputedStyle(el);
      const name = `${el.tagName}.${el.className}`.slice(0, 60);
      if (/(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1) found.push(`scrolls: ${name}`);
      const box = el.getBoundingClientRect();
      if (box.width > 0 && style.visibility !== 'hidden' && box.right > right + 1 && el.closest('legend') === null)
        found.push(`sticks out ${Math.round(box.right - right)} px: ${name}`);
    }
    return found;
  });
  expect(overflow).toEqual([]);
}

async function pageDoesNotScrollSideways(page: Page) {
  const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
  expect(widths.doc).toBeLessThanOrEqual(widths.view);
}

test('npm start builds React’s production bundle, and the page loads each list once', async ({ page }) => {
  const html = await (await fetch(`${E2E.baseUrl}/`)).text();
  expect(html).toContain('<meta name="medshare-bundle" content="production">');
  const doc = uniqueUser('healthProvider');
  await approveViaApi(await registerViaApi(doc));
  await signIn(page, doc.email, doc.password);
  // The page signIn left may still be fetching: count only what /dashboard loads.
  await page.goto('about:blank');
  const calls: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/') && request.method() === 'GET') calls.push(url.pathname + url.search);
  });
  await page.goto('/dashboard');
  await expect(page.getByRole('heading', { name: 'Users', exact: true })).toBeVisible();
  await page.waitForLoadState('networkidle');
  const twice = calls.filter((call, i) => calls.indexOf(call) !== i);
  // A development bundle runs every effect twice (StrictMode): each call would appear twice.
  expect(calls.length).toBeGreaterThan(0);
  expect(twice).toEqual([]);
});

for (const viewport of viewports) {
  test.describe(`screens as people use them (2) at ${viewport.width} px`, () => {
    test.use({ viewport });

    test('application settings fit: Add, names while editing, Save and Cancel all on screen', async ({ page }) => {
      await signIn(page, E2E.admin.email, E2E.admin.password);
      await page.goto('/appsettings');
      const settings = page.getByRole('region', { name: 'Application settings' });
      await expect(settings.getByText('share_expiry_hours').first()).toBeVisible();
      await pageDoesNotScrollSideways(page);
      await expectNoHorizontalOverflow(settings);
      const add = page.getByRole('button', { name: 'Add', exact: true });
      await add.scrollIntoViewIfNeeded();
      await expectWithinViewportWidth(page, add);
      await screenshot(page, 'walk2-settings');

      await page.getByRole('button', { name: 'Edit share_expiry_hours' }).click();
      const form = page.getByRole('form', { name: 'Edit share_expiry_hours' });
      const name = form.getByRole('textbox', { name: 'Name', exact: true });
      await expect(name).toHaveValue('share_expiry_hours');
      // The whole name is readable in its box, not cut.
      expect(await name.evaluate((input: HTMLInputElement) => input.scrollWidth <= input.clientWidth)).toBe(true);
      const save = form.getByRole('button', { name: 'Save' });
      const cancel = form.getByRole('button', { name: 'Cancel' });
      for (const button of [save, cancel]) {
        await button.scrollIntoViewIfNeeded();
        await expectWithinViewportWidth(page, button);
      }
      await pageDoesNotScrollSideways(page);
      await screenshot(page, 'walk2-settings-editing');
      const value = form.getByRole('textbox', { name: 'Value', exact: true });
      const before = await value.inputValue();
      await value.fill(String(Number(before) + 1));
      await save.click();
      // Saved: the row is back in view mode with the new value.
      await expect(form).toHaveCount(0);
      await expect(settings.getByText(String(Number(before) + 1), { exact: true }).first()).toBeVisible();
      // Put it back for the other tests.
      await page.getByRole('button', { name: 'Edit share_expiry_hours' }).click();
      await form.getByRole('textbox', { name: 'Value', exact: true }).fill(before);
      await form.getByRole('button', { name: 'Save' }).click();
      await expect(form).toHaveCount(0);
    });

    test('the admin users list: every row’s actions reachable on screen', async ({ page }) => {
      await signIn(page, E2E.admin.email, E2E.admin.password);
      await page.goto('/dashboard');
      const users = page
        .getByRole('region', { name: 'Users' })
        .or(page.locator('section[aria-labelledby="users-heading"]'));
      const firstActions = page.getByRole('button', { name: /^Actions for / }).first();
      await expect(firstActions).toBeVisible();
      await pageDoesNotScrollSideways(page);
      await expectNoHorizontalOverflow(users.first());
      await expectWithinViewportWidth(page, firstActions);
      // The pager's arrows and the phone's Sort by field stay inside the card (the arrow was cut at 390 px).
      const card = (await users.first().boundingBox())!;
      const next = (await page.getByRole('button', { name: 'Go to next page' }).boundingBox())!;
      expect(next.x + next.width, 'next page inside the card').toBeLessThanOrEqual(card.x + card.width);
      // Sort by is the phone's (the wide table sorts by its headers): its right edge is the search field's.
      const sortBy = page.getByRole('combobox', { name: 'Sort by' });
      if (viewport.width < 800) {
        const sort = (await sortBy.boundingBox())!;
        const search = (await page.getByLabel('Search users').boundingBox())!;
        expect(Math.abs(sort.x + sort.width - (search.x + search.width))).toBeLessThan(2);
      } else {
        await expect(sortBy).toHaveCount(0);
      }
      await screenshot(page, 'walk2-admin-users');
      await firstActions.click();
      await expect(page.getByRole('menuitem', { name: 'View' })).toBeVisible();
      await page.keyboard.press('Escape');
    });

    test('a new patient sees one empty state that says what happens next, and no pager', async ({ page }) => {
      const pat = uniqueUser('patient');
      await registerViaApi(pat);
      await signIn(page, pat.email, pat.password);
      await page.goto('/view-images');
      const shared = page.getByRole('region', { name: 'Shared Images' });
      await expect(shared.getByText(/Nothing has been shared with you yet/)).toBeVisible();
      await expect(shared.getByText(/sharing id and a code/)).toBeVisible();
      // One message for the one section: no page-wide alert, no 'on this page' text, no '1 / 1'.
      await expect(page.getByText('No images yet.')).toHaveCount(0);
      await expect(page.getByText(/on this page/)).toHaveCount(0);
      await expect(page.getByRole('navigation', { name: 'Image pages' })).toHaveCount(0);
      await expect(page.getByText('1 / 1')).toHaveCount(0);
      await screenshot(page, 'walk2-patient-empty');
    });

    test('a provider’s image card keeps its icons and buttons on one line each; empty sections point to the next step', async ({
      page,
    }) => {
      const doc = uniqueUser('healthProvider');
      await approveViaApi(await registerViaApi(doc));
      await signIn(page, doc.email, doc.password);
      await page.goto('/view-images');
      const uploaded = page.getByRole('region', { name: 'Uploaded Images' });
      await expect(uploaded.getByText(/You have not uploaded any images yet/)).toBeVisible();
      await expect(uploaded.getByRole('link', { name: 'Upload Image' })).toBeVisible();
      await expect(
        page.getByRole('region', { name: 'Shared Images' }).getByText(/Nothing has been shared with you yet/),
      ).toBeVisible();
      await expect(page.getByText('No images yet.')).toHaveCount(0);
      await screenshot(page, 'walk2-provider-empty');

      const { token } = await signInViaApi(doc.email, doc.password);
      const caption = `Knee X-ray ${Date.now().toString(36)}`;
      await uploadViaApi(token, caption);
      await page.reload();
      const card = page.getByRole('article', { name: caption });
      await expect(card.getByRole('img', { name: `Preview of ${caption}` })).toBeVisible({ timeout: 15_000 });
      const centreY = async (locator: Locator) => {
        const box = (await locator.boundingBox())!;
        return box.y + box.height / 2;
      };
      const remove = card.getByRole('button', { name: `Delete ${caption}` });
      const download = card.getByRole('button', { name: `Download ${caption}` });
      const caption_ = card.getByRole('heading', { name: caption });
      // The icons sit on the caption's first line (a long caption wraps beside them); the buttons
      // keep one line of their own, no icon left alone.
      const firstLine = await caption_.evaluate((el) => {
        const box = el.getBoundingClientRect();
        return box.top + parseFloat(getComputedStyle(el).lineHeight) / 2;
      });
      for (const icon of [remove, download, card.getByRole('button', { name: 'Share by link' })])
        expect(Math.abs((await centreY(icon)) - firstLine)).toBeLessThan(8);
      const buttonRow = await Promise.all(
        ['View', 'Share', 'Ai'].map((name) =>
          centreY(card.getByRole('button', { name, exact: true }).or(card.getByRole('link', { name, exact: true }))),
        ),
      );
      expect(Math.max(...buttonRow) - Math.min(...buttonRow)).toBeLessThan(2);
      await expectWithinViewportWidth(page, remove);
      await pageDoesNotScrollSideways(page);
      await screenshot(page, 'walk2-provider-card');

      // Each icon names itself on hover (a CSS hint, `data-hint`), inside the card, not clipped by it.
      const hint = (locator: Locator) =>
        locator.evaluate((el) => {
          const after = getComputedStyle(el, '::after');
          return { text: after.content, opacity: after.opacity };
        });
      for (const [icon, text] of [
        [download, 'Download'],
        [remove, 'Delete'],
      ] as const) {
        expect(await hint(icon)).toEqual({ text: `"${text}"`, opacity: '0' });
        await icon.hover();
        await expect.poll(async () => (await hint(icon)).opacity).toBe('1');
        const box = await icon.evaluate((el) => {
          // The pseudo-element's box from its used left and right; a centred one is moved back by half its width.
          const button = el.getBoundingClientRect();
          const after = getComputedStyle(el, '::after');
          let left = button.left + parseFloat(after.left);
          let right = button.right - parseFloat(after.right);
          if (after.transform !== 'none') [left, right] = [left - (right - left) / 2, right - (right - left) / 2];
          const card = el.closest('article')!.getBoundingClientRect();
          return { left, right, cardLeft: card.left, cardRight: card.right };
        });
        expect(box.left).toBeGreaterThanOrEqual(box.cardLeft);
        expect(box.right).toBeLessThanOrEqual(box.cardRight);
      }
      await download.hover();
      await expect.poll(async () => (await hint(download)).opacity).toBe('1');
      await screenshot(page, 'walk2-provider-card-hint');
    });

    test('the dashboard counts say what they count: the sharer’s uploads, the recipient’s shares', async ({ page }) => {
      const doc = uniqueUser('healthProvider');
      await approveViaApi(await registerViaApi(doc));
      const other = uniqueUser('healthProvider');
      const otherId = await registerViaApi(other);
      await approveViaApi(otherId);
      const { token } = await signInViaApi(doc.email, doc.password);
      for (let i = 0; i < 3; i += 1) {
        const id = await uploadViaApi(token, `Shared scan ${i}`);
        await api('POST', '/sharing/request', token, { imagemetadataId: id, createdfor: otherId });
      }
      await uploadViaApi(token, 'Kept scan');

      await signIn(page, doc.email, doc.password);
      await page.goto('/dashboard');
      const total = page.getByRole('region', { name: 'Total Images' });
      const shared = page.getByRole('region', { name: 'Shared Images' });
      await expect(total).toContainText('4');
      await expect(total).toContainText('Your uploads and images shared with you');
      // The sharer's 0 is labelled as what it is: nothing was shared *with* them.
      await expect(shared).toContainText('0');
      await expect(shared).toContainText('Shared with you by others');
      await pageDoesNotScrollSideways(page);
      await screenshot(page, 'walk2-provider-dashboard');
      await page.getByRole('button', { name: 'Logout' }).click();

      await signIn(page, other.email, other.password);
      await page.goto('/dashboard');
      await expect(page.getByRole('region', { name: 'Shared Images' })).toContainText('3');
      await expect(page.getByRole('region', { name: 'Total Images' })).toContainText('3');
    });
  });
}

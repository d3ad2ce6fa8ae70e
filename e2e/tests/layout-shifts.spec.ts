import { type Browser, expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser, uploadFileViaApi } from '../support/api.ts';
import { total, watchLayoutShifts } from '../support/layout-shift.ts';
import { screenshot, signInWithSession } from '../support/ui.ts';

const fixture = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../server/test/fixtures/${path}`, import.meta.url)));
const PHOTO = fixture('other/photo_hopper_portrait.jpg');
const DICOM = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm');

/** A provider with a DICOM study and three photos, signed in, the page's link slowed to a phone's. */
async function providerOnSlowLink(browser: Browser, viewport: { width: number; height: number }) {
  const provider = uniqueUser('healthProvider');
  await approveViaApi(await registerViaApi(provider));
  const { token } = await signInViaApi(provider.email, provider.password);
  await uploadFileViaApi(token, {
    caption: 'Layout CT head',
    name: 'head.dcm',
    type: 'application/dicom',
    data: DICOM,
  });
  for (const n of [1, 2, 3])
    await uploadFileViaApi(token, { caption: `Layout knee ${n}`, name: 'knee.jpg', type: 'image/jpeg', data: PHOTO });
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await signInWithSession(page, provider.email, provider.password);
  const shifts = await watchLayoutShifts(context, page);
  return { page, context, shifts };
}

/**
 * Pages whose parts arrive in more than one read, loaded over a phone's link: nothing already drawn
 * moves when a later part comes (docs/architecture.md › Frontend, "Start-up"). Each of these moved:
 * View Images by 0.25 at 1280 px and 0.51 on a phone (the studies section appeared above the image
 * cards), the dashboard by 0.04-0.05 (the counts' notes and the users table's pager came after the
 * rest) and the audit logs by 0.04-0.06 (the pager under the rows).
 */
for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  const size = `${viewport.width}×${viewport.height}`;

  test(`View Images: the studies section never pushes the image cards down (${size})`, async ({ browser }) => {
    const { page, context, shifts } = await providerOnSlowLink(browser, viewport);
    await page.goto('/view-images');
    const studies = page.getByRole('region', { name: 'DICOM Studies' });
    const uploaded = page.getByRole('region', { name: 'Uploaded Images' });
    await expect(studies.getByRole('article', { name: 'Layout CT head' })).toBeVisible({ timeout: 30_000 });
    await expect(
      uploaded.getByRole('article', { name: 'Layout knee 3' }).getByRole('img', { name: 'Preview of Layout knee 3' }),
    ).toBeVisible({ timeout: 30_000 });
    const scores = await shifts.settle();
    expect(total(scores), `layout shifts: ${scores.join(', ')}`).toBeLessThan(0.01);
    const above = await studies.evaluate(
      (s, u) => Boolean(u && s.compareDocumentPosition(u) & Node.DOCUMENT_POSITION_FOLLOWING),
      await uploaded.elementHandle(),
    );
    expect(above).toBe(true);
    await screenshot(page, 'layout-view-images-study-and-files');
    await context.close();
  });

  test(`View Images: the image sections wait for their own list, not only the studies' (${size})`, async ({
    browser,
  }) => {
    const { page, context, shifts } = await providerOnSlowLink(browser, viewport);
    // The image list answers last, after the page's chunks and the study list: drawn before it, the
    // Shared section was pushed down as the Uploaded cards filled in above it.
    await page.route('**/api/upload/my-images?*', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await route.continue();
    });
    await page.goto('/view-images');
    const studies = page.getByRole('region', { name: 'DICOM Studies' });
    await expect(studies.getByRole('article', { name: 'Layout CT head' })).toBeVisible({ timeout: 30_000 });
    // The list is still on its way: no image section is drawn yet.
    await expect(page.getByRole('region', { name: 'Shared Images' })).toHaveCount(0);
    const shared = page.getByRole('region', { name: 'Shared Images' });
    await expect(shared).toBeVisible({ timeout: 30_000 });
    await expect(
      page
        .getByRole('region', { name: 'Uploaded Images' })
        .getByRole('article', { name: 'Layout knee 3' })
        .getByRole('img', { name: 'Preview of Layout knee 3' }),
    ).toBeVisible({ timeout: 30_000 });
    const scores = await shifts.settle();
    expect(total(scores), `layout shifts: ${scores.join(', ')}`).toBeLessThan(0.01);
    await context.close();
  });

  test(`the dashboard and the audit logs keep still while their reads answer (${size})`, async ({ browser }) => {
    const { page, context, shifts } = await providerOnSlowLink(browser, viewport);
    await page.goto('/dashboard');
    await expect(page.getByRole('region', { name: 'Total Images' })).toContainText(/\d/, { timeout: 30_000 });
    await expect(page.getByText(/\d+–\d+ of \d+/).first()).toBeVisible({ timeout: 30_000 });
    let scores = await shifts.settle();
    expect(total(scores), `dashboard layout shifts: ${scores.join(', ')}`).toBeLessThan(0.01);
    await screenshot(page, 'layout-dashboard');

    const again = await watchLayoutShifts(context, page);
    await page.goto('/audit-logs');
    await expect(page.getByText(/\d+–\d+ of \d+/).first()).toBeVisible({ timeout: 30_000 });
    scores = await again.settle();
    expect(total(scores), `audit logs layout shifts: ${scores.join(', ')}`).toBeLessThan(0.01);
    await screenshot(page, 'layout-audit-logs');
    await context.close();
  });
}

/**
 * The static first pages (web/build/prerender.ts) are complete HTML, but Chromium paints a document
 * before it has parsed all of it when its bytes come slowly: the sign-in card, centred on the page,
 * was drawn with half its fields and moved up as the rest came (0.02-0.05 on Lighthouse's desktop
 * run, about one load in two). The pages now hold their first paint until the copy is parsed whole.
 */
for (const viewport of [
  { width: 1350, height: 940 },
  { width: 390, height: 844 },
]) {
  test(`the static landing and login pages are drawn whole, never half-parsed (${viewport.width}×${viewport.height})`, async ({
    browser,
  }) => {
    for (const path of ['/login', '/']) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const shifts = await watchLayoutShifts(context, page);
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      const scores = await shifts.settle();
      expect(total(scores), `${path} layout shifts: ${scores.join(', ')}`).toBe(0);
      await context.close();
    }
  });
}

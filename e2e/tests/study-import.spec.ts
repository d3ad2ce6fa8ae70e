import { AxeBuilder } from '@axe-core/playwright';
import { type Locator, type Page, expect, test } from '@playwright/test';
import { approveViaApi, registerViaApi, uniqueUser } from '../support/api.ts';
import { type Disc, makeDisc } from '../support/dicom-disc.ts';
import { signInWithSession, screenshot } from '../support/ui.ts';

// docs/product.md › Upload (study import) and › Stack viewer: a patient's CD imported as a folder,
// imported again (every file already stored), then one series paged through slice by slice.

const SERIES_SIZES = [16, 4];
const VIEWPORTS = [
  { width: 1280, height: 800, touch: false },
  { width: 390, height: 844, touch: true },
];

/** Picks the folder through the "Choose a folder" button (the same file input, set to pick a directory). */
async function importFolder(page: Page, disc: Disc, shot?: string) {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Choose a folder' }).click();
  await (await chooser).setFiles(disc.root);
  const start = page.getByRole('button', { name: `Import ${disc.files} DICOM files` });
  await expect(start).toBeVisible();
  const row = (name: string) => page.getByTestId('import-item').filter({ hasText: name });
  await expect(row('DICOMDIR')).toHaveAttribute('data-state', 'skipped');
  await expect(row('DICOMDIR')).toContainText(`read to find the ${disc.files} files it lists`);
  await expect(row('README.TXT')).toHaveAttribute('data-state', 'skipped');
  await expect(row('README.TXT')).toContainText('Not a DICOM file');
  await expect(page.getByTestId('import-item').and(page.locator('[data-state=queued]'))).toHaveCount(disc.files);
  if (shot) await screenshot(page, shot);
  await start.click();
  await expect(page.getByRole('progressbar', { name: 'Import progress' })).toBeVisible();
}

/** A coarse look at the viewport's canvas: how many grey levels it shows (a blank canvas has one). */
async function greyLevels(viewport: Locator): Promise<number> {
  return viewport.evaluate((root) => {
    const canvas = root.querySelector('canvas');
    if (!canvas?.width) return 0;
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const ctx = copy.getContext('2d')!;
    ctx.drawImage(canvas, 0, 0);
    const { data } = ctx.getImageData(0, 0, copy.width, copy.height);
    const levels = new Set<number>();
    for (let i = 0; i < data.length; i += 4 * 31) levels.add(data[i]!);
    return levels.size;
  });
}

/** A one-finger swipe from `fromY` to `toY` across the middle of `box`, as a touch screen sends it. */
async function swipe(page: Page, box: { x: number; width: number }, fromY: number, toY: number) {
  const cdp = await page.context().newCDPSession(page);
  const x = box.x + box.width / 2;
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y: fromY }] });
  for (let i = 1; i <= 10; i++) {
    await cdp.send('Input.dispatchTouchEvent', {
      type: 'touchMove',
      touchPoints: [{ x, y: fromY + ((toY - fromY) * i) / 10 }],
    });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

for (const size of VIEWPORTS) {
  test.describe(`at ${size.width} px`, () => {
    test.use({ viewport: { width: size.width, height: size.height }, hasTouch: size.touch });
    test(`imports a disc folder with per-file states, again as already stored, and pages a series through every slice (${size.width} px)`, async ({
      page,
    }) => {
      test.setTimeout(240_000);
      const disc = makeDisc(SERIES_SIZES);
      try {
        const doc = uniqueUser('healthProvider');
        await approveViaApi(await registerViaApi(doc));
        await signInWithSession(page, doc.email, doc.password);
        // The session is stored once the code is accepted and the app moves on; a load before that signs out.
        await expect(page).toHaveURL(/\/dashboard/, { timeout: 15_000 });
        await page.goto('/upload');

        // First import: every DICOM file stored; the DICOMDIR read and the README skipped.
        await importFolder(page, disc, 'study-import-ready');
        const done = page.getByTestId('import-done');
        await expect(done).toHaveText(`Import finished: ${disc.files} stored, 0 already stored, 0 failed, 2 skipped.`, {
          timeout: 90_000,
        });
        await expect(page.getByTestId('import-progress')).toHaveText(
          `${disc.files} of ${disc.files} files done · 100%`,
        );
        await expect(page.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute(
          'aria-valuenow',
          '100',
        );
        await expect(page.locator('[data-testid=import-item][data-state=stored]')).toHaveCount(disc.files);
        const axe = await new AxeBuilder({ page }).analyze();
        expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
        await screenshot(page, 'study-import-done');

        // The same folder again: the server knows every instance; nothing is stored twice.
        await page.getByRole('button', { name: 'Import more files' }).click();
        await importFolder(page, disc);
        await expect(done).toHaveText(`Import finished: 0 stored, ${disc.files} already stored, 0 failed, 2 skipped.`, {
          timeout: 90_000,
        });
        await expect(
          page.getByTestId('import-item').filter({ hasText: 'IM1' }).first().getByText('Already stored'),
        ).toBeVisible();
        await screenshot(page, 'study-import-again');

        // The first series in the stack viewer: 16 slices, in Instance Number order.
        const [series] = disc.series;
        const slices = series!.slices;
        await page.goto(`/studies/${disc.studyUid}/series/${series!.uid}`);
        const viewport = page.getByTestId('stack-viewport');
        await expect(viewport).toHaveAttribute('data-state', 'rendered', { timeout: 60_000 });
        const position = page.getByTestId('slice-position');
        await expect(position).toHaveText(`1 / ${slices} · Slice -20 mm`);
        expect(await greyLevels(viewport)).toBeGreaterThan(10);

        if (size.touch) {
          // A phone: one finger down the image pages forward, up pages back (the scroll tool is the default).
          const box = (await viewport.boundingBox())!;
          const slice = async () => Number(/^(\d+)/.exec((await position.textContent()) ?? '')?.[1]);
          await swipe(page, box, box.y + box.height * 0.2, box.y + box.height * 0.8);
          await expect(position).not.toHaveText(/^1 \//);
          const forward = await slice();
          expect(forward).toBeGreaterThan(4);
          await swipe(page, box, box.y + box.height * 0.8, box.y + box.height * 0.2);
          await expect.poll(slice).toBeLessThan(forward);
          await viewport.focus();
          await page.keyboard.press('Home');
          await expect(position).toHaveText(/^1 \//);
        }

        // Every slice by the wheel…
        await viewport.hover();
        for (let k = 2; k <= slices; k++) {
          await page.mouse.wheel(0, 120);
          await expect(position).toHaveText(new RegExp(`^${k} / ${slices}\\b`));
        }
        await expect(position).toHaveText(`${slices} / ${slices} · Slice ${(slices - 1) * 2.5 - 20} mm`);
        expect(await greyLevels(viewport)).toBeGreaterThan(10);

        // …and back and forth by the arrow keys.
        await viewport.focus();
        for (let k = slices - 1; k >= 1; k--) {
          await page.keyboard.press('ArrowUp');
          await expect(position).toHaveText(new RegExp(`^${k} / ${slices}\\b`));
        }
        for (let k = 2; k <= slices; k++) {
          await page.keyboard.press('ArrowDown');
          await expect(position).toHaveText(new RegExp(`^${k} / ${slices}\\b`));
        }
        await page.keyboard.press('Home');
        await expect(position).toHaveText(/^1 \//);
        await page.keyboard.press('End');
        await expect(position).toHaveText(new RegExp(`^${slices} / ${slices}\\b`));

        // A preset applies to the stack and stays while paging.
        await page.getByRole('button', { name: /^Bone window/ }).click();
        // Off the button: its tooltip, opening under the pointer, is not the page's layout.
        await page.mouse.move(0, 0);
        await viewport.focus();
        await page.keyboard.press('PageUp');
        await expect(position).toHaveText(new RegExp(`^${slices - 10} / ${slices}\\b`));
        await expect(page.getByRole('button', { name: /^Bone window/ })).toHaveAttribute('aria-pressed', 'true');
        // A CI run once read 395 px here, for a moment (a popup being placed); the layout is what counts.
        await expect
          .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
          .toBeLessThanOrEqual(size.width);
        await screenshot(page, 'stack-viewer');
      } finally {
        disc.remove();
      }
    });
  });
}

import { type Page, expect, test } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser, uploadFileViaApi } from '../support/api.ts';
import { E2E } from '../support/env.ts';
import { signInWithSession } from '../support/ui.ts';
import { expectAccessible } from '../support/accessibility.ts';

const FIXTURES = new URL('../../server/test/fixtures/dicom/', import.meta.url);

/** Fixtures with pixel data whose transfer syntax the loader decodes in JavaScript. */
const JS_FIXTURES = [
  'ct_implicit_le_16bit_signed.dcm',
  'ct_explicit_le_16bit_signed_small.dcm',
  'ct_multiframe_jpeg_lossless_sv1.dcm',
  'cr_implicit_le_no_preamble_mono1.dcm',
  'mr_explicit_be_16bit_signed.dcm',
  'mr_multiframe_rle_16bit.dcm',
  'nm_jpeg_extended_12bit.dcm',
  'ot_deflated_8bit.dcm',
  'us_palette_color_rle_2frame.dcm',
  'us_rgb_explicit_le_8bit.dcm',
] as const;

/** Fixtures whose codec is WebAssembly (JPEG-LS, JPEG 2000, JPEG baseline via libjpeg-turbo). */
const WASM_FIXTURES = [
  'ct_jpeg_ls_lossless_16bit_signed.dcm',
  'cr_jpeg2000_lossy_mono1.dcm',
  'mr_jpeg2000_lossless_16bit_signed.dcm',
  'us_multiframe_ybr422_jpeg_baseline.dcm',
] as const;

const CT = 'ct_implicit_le_16bit_signed.dcm';

/** The SOP Instance UID of a fixture: from the meta header (0002,0003), else the data set's (0008,0018). */
function sopInstanceUid(bytes: Buffer): string | null {
  const meta = bytes.indexOf(Buffer.from([0x02, 0x00, 0x03, 0x00, 0x55, 0x49]));
  if (meta >= 0) return bytes.toString('latin1', meta + 8, meta + 8 + bytes.readUInt16LE(meta + 6)).replace(/\0+$/, '');
  const tag = bytes.indexOf(Buffer.from([0x08, 0x00, 0x18, 0x00]));
  if (tag < 0) return null;
  return bytes.toString('latin1', tag + 8, tag + 8 + bytes.readUInt32LE(tag + 4)).replace(/\0+$/, '');
}

/**
 * Several fixtures are one instance in other transfer syntaxes (the same SOP Instance UID), and an
 * uploader stores an instance once (`docs/product.md` › Upload). Each copy uploaded here gets its
 * own UID (the last digit changed, same length, wherever it appears) so that every syntax is shown.
 */
function fixtureBytes(file: string, index: number): Uint8Array<ArrayBuffer> {
  const bytes = readFileSync(new URL(file, FIXTURES));
  const uid = sopInstanceUid(bytes);
  if (!uid || !/\d$/.test(uid)) return new Uint8Array(bytes);
  const last = Number(uid.at(-1));
  const other = `${uid.slice(0, -1)}${(last + 1 + (index % 9)) % 10}`;
  return new Uint8Array(Buffer.from(bytes.toString('latin1').replaceAll(uid, other), 'latin1'));
}

let uploaded = 0;
const uploadDicom = (token: string, file: string): Promise<string> =>
  uploadFileViaApi(token, {
    caption: file,
    name: file,
    type: 'application/dicom',
    data: fixtureBytes(file, uploaded++),
  });

/**
 * What the viewport's canvas shows: how many distinct grey levels a coarse sample has and the
 * mean brightness. A blank (all-black or single-colour) canvas has one level.
 */
async function canvasStats(page: Page) {
  return page.getByTestId('dicom-viewport').evaluate((root) => {
    const canvas = root.querySelector('canvas');
    if (!canvas || !canvas.width || !canvas.height) return { levels: 0, mean: 0, width: 0 };
    const copy = document.createElement('canvas');
    copy.width = canvas.width;
    copy.height = canvas.height;
    const ctx = copy.getContext('2d');
    if (!ctx) return { levels: 0, mean: 0, width: 0 };
    ctx.drawImage(canvas, 0, 0);
    const { data } = ctx.getImageData(0, 0, copy.width, copy.height);
    const levels = new Set<number>();
    let sum = 0;
    let n = 0;
    for (let i = 0; i < data.length; i += 4 * 97) {
      const grey = (data[i]! + data[i + 1]! + data[i + 2]!) / 3;
      levels.add(Math.round(grey));
      sum += grey;
      n += 1;
    }
    return { levels: levels.size, mean: sum / n, width: canvas.width };
  });
}

/** In-app navigation: a full reload would parse the viewer's 4 MB of JavaScript again each time. */
async function openViewer(page: Page, id: string) {
  await page.evaluate((path) => {
    window.history.pushState(null, '', path);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, `/dicom/${id}`);
  await expect(page).toHaveURL(`/dicom/${id}`);
  // This image's viewport: until React has rendered the new route, the previous image's is still there.
  const viewport = page.locator(`[data-testid="dicom-viewport"][data-image="${id}"]`);
  // A first decode waits for the engine's workers and codecs: 20 s was not enough at load 12 (CI rehearsal).
  await expect(viewport).toHaveAttribute('data-state', /rendered|error/, { timeout: 45_000 });
  return viewport;
}

const ids = new Map<string, string>();
let page: Page;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(60_000);
  const account = uniqueUser('healthProvider');
  await approveViaApi(await registerViaApi(account));
  const { token } = await signInViaApi(account.email, account.password);
  // Newest first in the list: the CT goes last so its card is on the first page.
  for (const file of ['sr_comprehensive_explicit_le.dcm', ...WASM_FIXTURES, ...[...JS_FIXTURES].reverse()]) {
    ids.set(file, await uploadDicom(token, file));
  }
  // One signed-in page for the whole file: signing in takes a mailed code each time.
  // (A context of our own: axe needs one made with browser.newContext().)
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await signInWithSession(page, account.email, account.password);
  await expect(page).toHaveURL(/\/dashboard/);
});

test.afterAll(async () => {
  await page?.context().close();
});

/** Opens each file and collects what did not render, so one run names every failure. */
async function renderFailures(files: readonly string[]): Promise<string[]> {
  const failures: string[] = [];
  for (const file of files) {
    const viewport = await openViewer(page, ids.get(file)!);
    if ((await viewport.getAttribute('data-state')) !== 'rendered') {
      failures.push(`${file}: ${await page.getByTestId('dicom-error').textContent()}`);
      continue;
    }
    const stats = await canvasStats(page);
    if (stats.levels < 3) failures.push(`${file}: the canvas looks blank (${JSON.stringify(stats)})`);
  }
  return failures;
}

test('the viewer renders every JavaScript-decoded fixture; broken files and reports say why', async () => {
  // View Images shows DICOM as study cards that open the study page (studies.spec.ts); the
  // single-instance viewer is opened by its address.
  await openViewer(page, ids.get(CT)!);
  await expect(page.getByTestId('dicom-viewport')).toHaveAttribute('data-state', 'rendered', { timeout: 45_000 });
  await expect(page.getByRole('complementary', { name: 'Image details' })).toContainText('512 × 512');

  expect(await renderFailures(JS_FIXTURES)).toEqual([]);

  // The server refuses damaged uploads, so a file damaged on the way stands in for one: the CT
  // cut off inside its pixel data.
  const contentUrl = `**/api/images/${ids.get(CT)}/content`;
  const ctBytes = readFileSync(new URL(CT, FIXTURES));
  await page.route(contentUrl, (route) =>
    route.fulfill({ status: 200, contentType: 'application/dicom', body: ctBytes.subarray(0, 20_000) }),
  );
  await page.goto('/dashboard');
  const broken = await openViewer(page, ids.get(CT)!);
  await expect(broken).toHaveAttribute('data-state', 'error');
  await expect(page.getByTestId('dicom-error')).toContainText('This DICOM file could not be displayed');
  await expect(page.getByTestId('dicom-error')).toContainText('truncated');
  await page.unroute(contentUrl);

  await openViewer(page, ids.get('sr_comprehensive_explicit_le.dcm')!);
  await expect(page.getByTestId('dicom-error')).toContainText('no pixel data');
});

test('CT: lung preset, drag window/level, invert, zoom, reset; screenshots at 1280 and 390 px', async () => {
  await openViewer(page, ids.get(CT)!);
  const viewport = page.getByTestId('dicom-viewport');
  await expect(viewport).toHaveAttribute('data-state', 'rendered');
  const overlay = page.getByTestId('dicom-overlay');
  const defaultWindow = await overlay.textContent();

  await page.getByRole('button', { name: /^Lung window/ }).click();
  await expect(overlay).toContainText('W 1500 / L -600');
  await expect(page.getByRole('button', { name: /^Lung window/ })).toHaveAttribute('aria-pressed', 'true');
  const lung = await canvasStats(page);
  expect(lung.levels).toBeGreaterThan(20);
  mkdirSync(E2E.screenshotDir, { recursive: true });
  await page.screenshot({ path: `${E2E.screenshotDir}dicom-viewer-ct-lung.png`, fullPage: true });

  // Mouse drag with the window/level tool changes the window.
  const box = (await viewport.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 120, box.y + box.height / 2 + 60, { steps: 6 });
  await page.mouse.up();
  await expect(overlay).not.toContainText('W 1500 / L -600');
  await expect(page.getByRole('button', { name: /^Lung window/ })).toHaveAttribute('aria-pressed', 'false');

  await page.getByRole('button', { name: 'Invert' }).click();
  await expect(page.getByRole('button', { name: 'Invert' })).toHaveAttribute('aria-pressed', 'true');
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await expect(overlay).toContainText('Zoom 125%');
  await page.keyboard.press('r');
  await expect(overlay).toContainText('Zoom 100%');
  await expect(page.getByRole('button', { name: 'Invert' })).toHaveAttribute('aria-pressed', 'false');
  expect(await overlay.textContent()).toBe(defaultWindow);

  // Phone width: the tools wrap, nothing scrolls sideways, details move into a drawer.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.keyboard.press('2');
  await expect(overlay).toContainText('W 1500 / L -600');
  // The canvas follows its element a frame or more after the resize (later while a render is
  // pending: cornerstone-viewer.ts › refit), so the page narrows to the phone's width, not at once.
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  for (const name of ['Zoom in', 'Zoom out', 'Invert', 'Reset view', 'Image details']) {
    await expect(page.getByRole('button', { name })).toBeInViewport();
  }
  await page.screenshot({ path: `${E2E.screenshotDir}dicom-viewer-ct-lung-390.png`, fullPage: true });

  await page.getByRole('button', { name: 'Image details' }).click();
  await expect(page.getByRole('dialog')).toContainText('Modality');
  await page.getByRole('button', { name: 'Close' }).click();
  await page.setViewportSize({ width: 1280, height: 900 });

  await expectAccessible(page);
});

/** The overlay's "W 1500 / L -600" as numbers. */
async function overlayWindow(page: Page): Promise<{ width: number; level: number }> {
  const text = (await page.getByTestId('dicom-overlay').textContent()) ?? '';
  const match = /W (-?[\d.]+) \/ L (-?[\d.]+)/.exec(text);
  if (!match) throw new Error(`no window in the overlay: ${text}`);
  return { width: Number(match[1]), level: Number(match[2]) };
}

test('CT: lung window on a phone: a one-finger drag adjusts it (touch only, no mouse)', async () => {
  // A phone of its own: a touch screen and no mouse. Cornerstone drops a touch that comes within
  // 2 s of a mouse event on the image (its guard against emulated "ghost" clicks), so a page the
  // mouse has just dragged on is a touch laptop, not a phone, and would only pass by timing.
  const phone = await page
    .context()
    .browser()!
    .newContext({
      storageState: await page.context().storageState(),
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
  try {
    const touch = await phone.newPage();
    await touch.goto(`/dicom/${ids.get(CT)}`);
    const viewport = touch.getByTestId('dicom-viewport');
    await expect(viewport).toHaveAttribute('data-state', 'rendered', { timeout: 45_000 });
    expect(await touch.evaluate(() => navigator.maxTouchPoints)).toBeGreaterThan(0);
    await touch.getByRole('button', { name: /^Lung window/ }).tap();
    const overlay = touch.getByTestId('dicom-overlay');
    await expect(overlay).toContainText('W 1500 / L -600');

    const box = (await viewport.boundingBox())!;
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    const cdp = await phone.newCDPSession(touch);
    // Spaced like a finger (about 30 ms apart), right and down: wider window, higher level.
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
    for (let i = 1; i <= 8; i += 1) {
      await touch.waitForTimeout(30);
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: x + i * 15, y: y + i * 8 }] });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await cdp.detach();
    await expect(overlay).not.toContainText('W 1500 / L -600');
    const after = await overlayWindow(touch);
    expect(after.width).toBeGreaterThan(1500);
    expect(after.level).toBeGreaterThan(-600);
    await expect(touch.getByRole('button', { name: /^Lung window/ })).toHaveAttribute('aria-pressed', 'false');
    // The drag belongs to the image: the page did not scroll under the finger.
    expect(await touch.evaluate(() => window.scrollY)).toBe(0);
  } finally {
    await phone.close();
  }
});

test('multi-frame: slider, arrow keys and cine play/pause', async () => {
  await openViewer(page, ids.get('mr_multiframe_rle_16bit.dcm')!);
  const viewport = page.getByTestId('dicom-viewport');
  await expect(viewport).toHaveAttribute('data-state', 'rendered');
  const slider = page.getByRole('slider', { name: 'Frame' });
  await expect(slider).toHaveAttribute('aria-valuemax', '9');
  await viewport.focus();
  await page.keyboard.press('ArrowRight');
  await expect(viewport).toHaveAttribute('data-frame', '1');
  await page.getByRole('button', { name: 'Play' }).click();
  await expect(viewport).not.toHaveAttribute('data-frame', '1');
  await page.getByRole('button', { name: 'Pause' }).click();
  const frame = await viewport.getAttribute('data-frame');
  await page.waitForTimeout(300);
  await expect(viewport).toHaveAttribute('data-frame', frame!);
  // Moving the slider during the cine stops it on the frame chosen, not on the one shown before.
  // End lands on the last frame, which the cine may already show: then only MUI's commit stops it.
  await page.getByRole('button', { name: 'Play' }).click();
  await expect(viewport).not.toHaveAttribute('data-frame', frame!);
  await slider.focus();
  await page.keyboard.press('End');
  await expect(page.getByRole('button', { name: 'Play' })).toBeVisible();
  await expect(viewport).toHaveAttribute('data-frame', '9');
  await page.waitForTimeout(300);
  await expect(viewport).toHaveAttribute('data-frame', '9');

  // At phone width the frame controls wrap under the image without sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('combobox', { name: /Speed/ })).toBeVisible();
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  mkdirSync(E2E.screenshotDir, { recursive: true });
  await page.screenshot({ path: `${E2E.screenshotDir}dicom-viewer-multiframe-390.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('WebAssembly-decoded fixtures (JPEG-LS, JPEG 2000, JPEG baseline) render', async () => {
  const failures = await renderFailures(WASM_FIXTURES);
  // The codecs need script-src 'wasm-unsafe-eval' in the server's Content-Security-Policy.
  expect(failures, "WebAssembly codecs need 'wasm-unsafe-eval' in script-src").toEqual([]);
});

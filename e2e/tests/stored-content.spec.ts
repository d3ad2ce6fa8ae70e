import { type Page, expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser } from '../support/api.ts';
import { E2E } from '../support/env.ts';
import { signInWithSession } from '../support/ui.ts';

/**
 * Stored bytes served from the app's origin (issue 14 item 16): content answers carry
 * `Content-Security-Policy: sandbox`. A `%PDF-` file holding HTML runs nothing whichever way it is
 * opened, a picture opened directly gets an opaque origin, and PDFs still show inline: in the app's
 * viewer (a blob: URL in an iframe) and opened directly in Chromium's PDF viewer.
 */
const FIXTURES = new URL('../../server/test/fixtures/other/', import.meta.url);
const PDF = readFileSync(new URL('minimal_document_1page.pdf', FIXTURES));
const PNG = readFileSync(new URL('photo_chelsea_cat.png', FIXTURES));
const HTML_IN_PDF = Buffer.from(
  '%PDF-1.4\n<html><body><h1>hello</h1><script>document.title="pwned"; new Image().src="/pwned"; alert(1)</script></body></html>\n',
);

async function upload(token: string, caption: string, name: string, type: string, data: Buffer): Promise<string> {
  const form = new FormData();
  form.append('caption', caption);
  form.append('file', new Blob([new Uint8Array(data)], { type }), name);
  const res = await fetch(`${E2E.baseUrl}/api/upload/image`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const json = (await res.json()) as { data: { image_url: string } };
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json.data.image_url;
}

/** Whatever the page did that stored bytes must never make it do. */
function watch(page: Page) {
  const seen = { dialogs: [] as string[], pwned: [] as string[] };
  page.on('dialog', (dialog) => {
    seen.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('request', (request) => {
    if (request.url().includes('/pwned')) seen.pwned.push(request.url());
  });
  return seen;
}

/** Share of near-white pixels in a screenshot: a rendered PDF page is white paper on the viewer's grey. */
async function whiteShare(page: Page, shot: Buffer): Promise<number> {
  return page.evaluate(async (png) => {
    const image = new Image();
    image.src = `data:image/png;base64,${png}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d')!;
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, image.width, image.height);
    let white = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i]! > 235 && data[i + 1]! > 235 && data[i + 2]! > 235) white++;
    return white / (data.length / 4);
  }, shot.toString('base64'));
}

/**
 * Whether Chromium's PDF viewer shows its load error. Its frames come and go while it starts, and a
 * query on a frame being replaced can wait without end (a CI run spent its whole test timeout here):
 * each frame gets 2 s, and a frame that does not answer counts as not showing the error.
 */
async function pdfFailedToLoad(page: Page): Promise<boolean> {
  const answers = page.frames().map((frame) =>
    Promise.race([
      frame
        .getByText('Failed to load PDF document')
        .count()
        .then((count) => count > 0)
        .catch(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000)),
    ]),
  );
  return (await Promise.all(answers)).some(Boolean);
}

test('stored content: sandboxed when opened directly, PDFs still shown inline', async ({ browser }) => {
  const doctor = uniqueUser('healthProvider');
  await approveViaApi(await registerViaApi(doctor));
  const { token } = await signInViaApi(doctor.email, doctor.password);
  const tag = Date.now().toString(36);
  const pdfCaption = `Discharge letter ${tag}`;
  const evilCaption = `Not really a PDF ${tag}`;
  const pdfUrl = await upload(token, pdfCaption, 'letter.pdf', 'application/pdf', PDF);
  const evilUrl = await upload(token, evilCaption, 'evil.pdf', 'application/pdf', HTML_IN_PDF);
  const pngUrl = await upload(token, `Cat ${tag}`, 'cat.png', 'image/png', PNG);

  // --- Opened directly (what a leaked or pasted URL would do, with the bearer header).
  const direct = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  const page = await direct.newPage();
  const seen = watch(page);

  const evil = await page.goto(`${E2E.baseUrl}${evilUrl}`);
  expect(evil?.status()).toBe(200);
  // allHeaders(): headers() is incomplete for a navigation Chromium hands to its PDF viewer.
  const headers = await evil!.allHeaders();
  expect(headers['content-type']).toBe('application/pdf');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['content-security-policy']).toMatch(/^sandbox;/);
  // The viewer's error appears once it has tried to parse the bytes (after 1.5 s on a loaded machine).
  await expect.poll(() => pdfFailedToLoad(page), { timeout: 10_000 }).toBe(true);
  expect(await page.title()).not.toBe('pwned');

  // A document built from stored bytes has an opaque origin: no storage, no cookies, no same-origin API calls.
  await page.goto(`${E2E.baseUrl}${pngUrl}`);
  expect(await page.evaluate(() => window.origin)).toBe('null');
  expect(
    await page.evaluate(() => {
      try {
        return localStorage.length >= 0;
      } catch {
        return 'blocked';
      }
    }),
  ).toBe('blocked');

  // Chromium's PDF viewer still renders a real PDF under the sandbox policy.
  await page.goto(`${E2E.baseUrl}${pdfUrl}`);
  await expect.poll(async () => whiteShare(page, await page.screenshot()), { timeout: 10_000 }).toBeGreaterThan(0.3);
  expect(await pdfFailedToLoad(page)).toBe(false);
  expect(seen).toEqual({ dialogs: [], pwned: [] });
  await direct.close();

  // --- In the app: the viewer fetches the bytes and shows a blob: URL in an iframe.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const app = await context.newPage();
  const appSeen = watch(app);
  await signInWithSession(app, doctor.email, doctor.password);
  await app.goto('/view-images');
  await app.getByRole('article', { name: pdfCaption }).getByRole('button', { name: 'View' }).click();
  const frame = app.locator(`iframe[title="PDF: ${pdfCaption}"]`);
  await expect(frame).toBeVisible();
  await expect.poll(async () => whiteShare(app, await frame.screenshot()), { timeout: 10_000 }).toBeGreaterThan(0.3);
  expect(await pdfFailedToLoad(app)).toBe(false);
  // By keyboard: a click over Chromium's PDF viewer can land in the viewer's own frame (a CI run
  // opened its menu instead), leaving the dialog open.
  await app.getByRole('button', { name: 'Close viewer' }).press('Enter');
  await expect(app.getByRole('dialog')).toBeHidden();

  await app.getByRole('article', { name: evilCaption }).getByRole('button', { name: 'View' }).click();
  await expect(app.locator(`iframe[title="PDF: ${evilCaption}"]`)).toBeVisible();
  await expect.poll(() => pdfFailedToLoad(app), { timeout: 10_000 }).toBe(true);
  expect(await app.title()).not.toBe('pwned');
  expect(appSeen).toEqual({ dialogs: [], pwned: [] });
  await context.close();
});

import { type Browser, type Page, expect, test } from '@playwright/test';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  approveViaApi,
  registerViaApi,
  shareByLinkViaApi,
  signInViaApi,
  uniqueUser,
  uploadFileViaApi,
} from '../support/api.ts';
import { generateStudy } from '../support/dicom-study.ts';
import { E2E } from '../support/env.ts';
import { enterCode, screenshot, signInWithSession } from '../support/ui.ts';
import { expectAccessible } from '../support/accessibility.ts';

// Issue 18: share with someone who has no account — a mailed link and a code passed on by phone.
const PHOTO = fileURLToPath(new URL('../../server/test/fixtures/other/photo_hopper_portrait.jpg', import.meta.url));

/** An approved provider, signed in through the API, and a patient of theirs. */
async function providerWithPatient() {
  const doctor = uniqueUser('healthProvider');
  await approveViaApi(await registerViaApi(doctor));
  const patientId = await registerViaApi(uniqueUser('patient'));
  const { token } = await signInViaApi(doctor.email, doctor.password);
  return { doctor, patientId, token };
}

/** Uploads the photo for the patient through the API, as the upload screen would (that screen has its own spec). */
const uploadPhoto = (token: string, patientId: string, caption: string) =>
  uploadFileViaApi(token, { caption, patientId, name: 'photo.jpg', type: 'image/jpeg', data: readFileSync(PHOTO) });

/** The link of the newest link mail to the address (quoted-printable undone), waiting for it. */
async function waitForLink(address: string): Promise<string> {
  const dir = join(E2E.dataDir, 'outbox');
  const to = new RegExp(`^To: .*${address.replace(/[.+]/g, '\\$&')}`, 'im');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const mails = readdirSync(dir)
      .filter((f) => f.endsWith('.eml'))
      .sort()
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .filter((eml) => to.test(eml))
      .map((eml) => eml.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
    const link = mails.map((eml) => /https?:\/\/[^\s"<>]+\/x#[A-Za-z0-9_-]{43}/.exec(eml)?.[0]).findLast(Boolean);
    if (link) return link;
    if (Date.now() > deadline) throw new Error(`no link mail to ${address}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Uploads one DICOM instance for the patient through the API (studies.spec.ts does the same). */
const uploadDicom = (token: string, file: { name: string; data: Buffer }, caption: string, patientId: string) =>
  uploadFileViaApi(token, { caption, patientId, name: file.name, type: 'application/dicom', data: file.data });

/** The code shown once in the Link sent dialog, which is then closed. */
async function readIssuedCode(page: Page): Promise<string> {
  const codeBox = page.getByLabel('Code for the recipient');
  await expect(codeBox).toHaveText(/^\d{6}$/);
  const code = (await codeBox.textContent())!;
  await page.getByRole('button', { name: 'Done' }).click();
  return code;
}

/**
 * A fresh browser with no account on the link; the code entered; the recipient's page and the
 * Authorization header of each read of a file's content (none is expected: the cookie only).
 */
async function openWithCode(browser: Browser, viewport: { width: number; height: number }, link: string, code: string) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const reads: Array<string | undefined> = [];
  page.on('request', (request) => {
    if (/\/api\/external\/images\/[^/]+\/content$/.test(request.url())) reads.push(request.headers().authorization);
  });
  await page.goto(link);
  await expect(page.getByRole('heading', { name: 'Enter the code' })).toBeVisible();
  await enterCode(page, code);
  await page.getByRole('button', { name: 'Open' }).click();
  return { page, reads };
}

/** Any other 6-digit code than the right one. */
const wrongOf = (code: string) => code.slice(0, 5) + String((Number(code[5]) + 1) % 10);

for (const width of [1280, 390]) {
  test(`a provider shares a photo by link; the recipient without an account opens it with the code; a revoke ends it (${width} px)`, async ({
    browser,
  }) => {
    const viewport = { width, height: width > 800 ? 900 : 844 };
    const { doctor, patientId, token } = await providerWithPatient();
    const caption = `Knee X-ray ${width}`;
    await uploadPhoto(token, patientId, caption);
    const recipient = `friend.${doctor.username}@example.org`;

    // The sharer: Share by link on the image's card.
    const sharerContext = await browser.newContext({ viewport });
    const sharer = await sharerContext.newPage();
    await signInWithSession(sharer, doctor.email, doctor.password);
    await sharer.goto('/view-images');
    const card = sharer.getByRole('article', { name: caption });
    await card.getByRole('button', { name: 'Share by link' }).click();
    const dialog = sharer.getByRole('dialog', { name: `Share “${caption}” by link` });
    await expect(dialog.getByLabel('Expires in (hours)')).toHaveValue('72');
    await dialog.getByLabel(/Recipient e-mail/).fill(recipient);
    await dialog.getByLabel('View only (no download)').check();
    await screenshot(sharer, 'external-share-dialog');
    await dialog.getByRole('button', { name: 'Send link' }).click();
    const codeBox = sharer.getByLabel('Code for the recipient');
    await expect(codeBox).toHaveText(/^\d{6}$/);
    const code = (await codeBox.textContent())!;
    await expect(sharer.getByText(/by phone or text message \(SMS\)/)).toBeVisible();
    await expect(sharer.getByText(/^Access ends /)).toBeVisible();
    await screenshot(sharer, 'external-share-code');
    await sharer.getByRole('button', { name: 'Done' }).click();
    const row = sharer.getByRole('listitem', { name: `Link to ${recipient}: ${caption}` });
    await expect(row.getByText('Active')).toBeVisible();

    // The recipient: a fresh browser with no account, the link from the mail.
    const link = await waitForLink(recipient);
    const recipientContext = await browser.newContext({ viewport });
    const viewer: Page = await recipientContext.newPage();
    await viewer.goto(link);
    await expect(viewer.getByRole('heading', { name: 'Enter the code' })).toBeVisible();
    // The token left the address bar (kept for the tab only).
    await expect(viewer).toHaveURL(/\/x$/);
    await expect(viewer.getByText(/^Access ends /)).toBeVisible();
    await enterCode(viewer, wrongOf(code));
    await viewer.getByRole('button', { name: 'Open' }).click();
    await expect(viewer.getByText('That code is not right.')).toBeVisible();
    await screenshot(viewer, 'external-link-wrong-code');
    await enterCode(viewer, code);
    await viewer.getByRole('button', { name: 'Open' }).click();
    await expect(viewer.getByRole('heading', { name: caption })).toBeVisible();
    await expect(viewer.getByRole('img', { name: caption })).toBeVisible();
    await expect(viewer.getByText(/^Access ends /)).toBeVisible();
    await expect(viewer.getByText('This share is view only: downloads are off.')).toBeVisible();
    await expect(viewer.getByRole('button', { name: 'Download' })).toHaveCount(0);
    // Nothing of the app shell: no menu, no sign-out.
    await expect(viewer.getByRole('button', { name: 'Logout' })).toHaveCount(0);
    await screenshot(viewer, 'external-link-open');
    // A reload in the same tab opens it again with the link's cookie, without the code.
    await viewer.reload();
    await expect(viewer.getByRole('heading', { name: caption })).toBeVisible();

    // The sharer sees the view and revokes.
    await sharer.reload();
    await expect(row.getByText(/· [1-9]\d* views?$/)).toBeVisible();
    await screenshot(sharer, 'external-share-list');
    await row.getByRole('button', { name: `Revoke link to ${recipient}` }).click();
    await sharer.getByRole('dialog', { name: 'Revoke this link?' }).getByRole('button', { name: 'Revoke' }).click();
    await expect(row.getByText('Revoked', { exact: true })).toBeVisible();

    // The recipient's next load says so plainly.
    await viewer.reload();
    await expect(viewer.getByRole('heading', { name: 'Access has ended' })).toBeVisible();
    await expect(viewer.getByText('This link no longer opens.', { exact: false })).toBeVisible();
    await expect(viewer.getByRole('img', { name: caption })).toHaveCount(0);
    await screenshot(viewer, 'external-link-revoked');

    await recipientContext.close();
    await sharerContext.close();
  });
}

for (const width of [1280, 390]) {
  test(`an administrator sees every user's links and revokes one; its recipient's next load ends (${width} px)`, async ({
    browser,
  }) => {
    const viewport = { width, height: width > 800 ? 900 : 844 };
    const { doctor, patientId, token } = await providerWithPatient();
    const caption = `Wrist X-ray ${width}`;
    const imageId = await uploadPhoto(token, patientId, caption);
    const recipient = `second.opinion.${doctor.username}@example.org`;
    const code = await shareByLinkViaApi(token, imageId, recipient);
    const { page: viewer } = await openWithCode(browser, viewport, await waitForLink(recipient), code);
    await expect(viewer.getByRole('img', { name: caption })).toBeVisible();

    const adminContext = await browser.newContext({ viewport });
    const admin = await adminContext.newPage();
    await signInWithSession(admin, E2E.admin.email, E2E.admin.password);
    await admin.goto('/view-images');
    const list = admin.getByRole('list', { name: 'Links shared by everyone' });
    const row = list.getByRole('listitem', { name: `Link to ${recipient}: ${caption}` });
    await row.scrollIntoViewIfNeeded();
    await expect(row.getByText(`Shared by ${doctor.firstname} ${doctor.lastname}`)).toBeVisible();
    await expect(row.getByText('Active')).toBeVisible();
    // Another user's link: revoke, never re-issue (that would show the administrator its code).
    await expect(row.getByRole('button', { name: /Re-issue/ })).toHaveCount(0);
    await screenshot(admin, 'external-share-admin-list');
    await row.getByRole('button', { name: `Revoke link to ${recipient}` }).click();
    await admin.getByRole('dialog', { name: 'Revoke this link?' }).getByRole('button', { name: 'Revoke' }).click();
    await expect(row.getByText('Revoked', { exact: true })).toBeVisible();

    await viewer.reload();
    await expect(viewer.getByRole('heading', { name: 'Access has ended' })).toBeVisible();
    await expect(viewer.getByRole('img', { name: caption })).toHaveCount(0);
    await adminContext.close();
    await viewer.context().close();
  });
}

for (const width of [1280, 390]) {
  test(`a DICOM study shared by link opens in the stack viewer, read-only; five wrong codes lock it; Re-issue gives a new link that works (${width} px)`, async ({
    browser,
  }) => {
    const viewport = { width, height: width > 800 ? 900 : 844 };
    const { doctor, patientId, token } = await providerWithPatient();
    const caption = `Chest CT by link ${width}`;
    const study = generateStudy([3]);
    for (const instance of study.instances) await uploadDicom(token, instance, caption, patientId);
    const recipient = `ct.${doctor.username}@example.org`;

    // The sharer: Share by link on the study page.
    const sharerContext = await browser.newContext({ viewport });
    const sharer = await sharerContext.newPage();
    await signInWithSession(sharer, doctor.email, doctor.password);
    await sharer.goto(`/studies/${study.studyUid}`);
    await sharer.getByRole('button', { name: 'Share by link' }).click();
    const dialog = sharer.getByRole('dialog', { name: `Share “${caption}” by link` });
    await dialog.getByLabel(/Recipient e-mail/).fill(recipient);
    await dialog.getByLabel('View only (no download)').check();
    await dialog.getByRole('button', { name: 'Send link' }).click();
    const code = await readIssuedCode(sharer);
    const link = await waitForLink(recipient);

    // The recipient: the study in the stack viewer, its files read from the link-scoped route.
    const { page: viewer, reads } = await openWithCode(browser, viewport, link, code);
    await expect(viewer.getByRole('heading', { name: caption })).toBeVisible();
    const stack = viewer.getByTestId('stack-viewport');
    await expect(stack).toHaveAttribute('data-state', 'rendered', { timeout: 30_000 });
    const position = viewer.getByTestId('slice-position');
    await expect(position).toHaveText('1 / 3');
    await expect(viewer.getByText('This share is view only: downloads are off.')).toBeVisible();
    await expect(viewer.getByRole('button', { name: 'Download' })).toHaveCount(0);
    await expect(viewer.getByRole('button', { name: 'Logout' })).toHaveCount(0);
    await stack.focus();
    await viewer.keyboard.press('ArrowDown');
    await expect(position).toHaveText('2 / 3');
    await viewer.keyboard.press('ArrowDown');
    await expect(position).toHaveText('3 / 3');
    await viewer.keyboard.press('ArrowUp');
    await expect(position).toHaveText('2 / 3');
    const lung = viewer.getByRole('button', { name: /^Lung window/ });
    await lung.click();
    await expect(lung).toHaveAttribute('aria-pressed', 'true');
    // The window stays when the slice changes (one window for the stack).
    await stack.focus();
    await viewer.keyboard.press('ArrowDown');
    await expect(position).toHaveText('3 / 3');
    await expect(lung).toHaveAttribute('aria-pressed', 'true');
    await expect(stack).toHaveAttribute('data-state', 'rendered');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((header) => header === undefined)).toBe(true);
    expect(await viewer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await screenshot(viewer, 'external-link-study');
    await expectAccessible(viewer);

    // Close, on a shared computer: the cookie goes with the tab's link, and a reload opens nothing.
    await viewer.getByRole('button', { name: 'Close' }).click();
    await expect(viewer.getByRole('heading', { name: 'Closed on this device' })).toBeVisible();
    await expect(stack).toHaveCount(0);
    const afterClose = await viewer.evaluate(async () => (await fetch('/api/external/view')).status);
    expect(afterClose).toBe(401);
    await viewer.reload();
    await expect(viewer.getByRole('heading', { name: 'This link does not open anything' })).toBeVisible();

    // Someone else with the link alone: five wrong codes lock it.
    const guesserContext = await browser.newContext({ viewport });
    const guesser = await guesserContext.newPage();
    await guesser.goto(link);
    for (let i = 0; i < 5; i++) {
      await expect(guesser.getByRole('heading', { name: 'Enter the code' })).toBeVisible();
      await enterCode(guesser, wrongOf(code));
      await guesser.getByRole('button', { name: 'Open' }).click();
      if (i < 4) await expect(guesser.getByText('That code is not right.')).toBeVisible();
    }
    await expect(guesser.getByRole('heading', { name: 'This link is locked' })).toBeVisible();
    await screenshot(guesser, 'external-link-locked');
    await expectAccessible(guesser);

    // The sharer re-issues: a new link and code; the new link opens the study.
    await sharer.goto('/view-images');
    const row = sharer.getByRole('listitem', { name: `Link to ${recipient}: ${caption}` });
    await expect(row.getByText('Locked')).toBeVisible();
    await row.getByRole('button', { name: `Re-issue link to ${recipient}` }).click();
    const newCode = await readIssuedCode(sharer);
    await expect(async () => expect(await waitForLink(recipient)).not.toBe(link)).toPass({ timeout: 15_000 });
    const newLink = await waitForLink(recipient);
    await expect(row.getByText('Active')).toBeVisible();
    const { page: reopened } = await openWithCode(browser, viewport, newLink, newCode);
    await expect(reopened.getByTestId('stack-viewport')).toHaveAttribute('data-state', 'rendered', {
      timeout: 30_000,
    });
    await expect(reopened.getByTestId('slice-position')).toHaveText('1 / 3');

    await reopened.context().close();
    await guesserContext.close();
    await viewer.context().close();
    await sharerContext.close();
  });
}

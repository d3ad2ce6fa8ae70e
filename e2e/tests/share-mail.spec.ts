import { type Browser, type Page, expect, test } from '@playwright/test';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser, uploadFileViaApi } from '../support/api.ts';
import { E2E } from '../support/env.ts';
import { mailCount } from '../support/mail.ts';
import { loginThroughUi, screenshot } from '../support/ui.ts';

const PHOTO = fileURLToPath(new URL('../../server/test/fixtures/other/photo_hopper_portrait.jpg', import.meta.url));

/** Quoted-printable to text (UTF-8). */
function fromQuotedPrintable(body: string): string {
  const soft = body.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const hex = /^=([0-9A-F]{2})/.exec(soft.slice(i, i + 3));
    if (hex) {
      bytes.push(Number.parseInt(hex[1]!, 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** An RFC 2047 header ("=?UTF-8?Q?…?=" or "=?UTF-8?B?…?="), unfolded and decoded. */
function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : fromQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

interface ShareMail {
  subject: string;
  text: string;
  html: string;
}

/** The parts of one mail the outbox transport wrote (multipart/alternative: text, then HTML). */
function parseMail(eml: string): ShareMail {
  const [head = '', ...rest] = eml.split(/\r?\n\r?\n/);
  const headers = head.replace(/\r?\n[ \t]+/g, ' ');
  const subject = decodeHeader(/^Subject: (.*)$/m.exec(headers)?.[1] ?? '');
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(headers)?.[1];
  const parts: Record<string, string> = {};
  for (const part of boundary ? rest.join('\n\n').split(`--${boundary}`) : []) {
    const [partHead = '', ...body] = part.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
    const type = /Content-Type: (text\/(?:plain|html))/i.exec(partHead)?.[1]?.toLowerCase();
    if (!type) continue;
    const raw = body.join('\n\n');
    parts[type] = /Content-Transfer-Encoding: base64/i.test(partHead)
      ? Buffer.from(raw, 'base64').toString('utf8')
      : /Content-Transfer-Encoding: quoted-printable/i.test(partHead)
        ? fromQuotedPrintable(raw)
        : raw;
  }
  return { subject, text: parts['text/plain'] ?? '', html: parts['text/html'] ?? '' };
}

/** The newest share mail to the address beyond the first `after` mails. */
async function waitForShareMailParts(address: string, after: number): Promise<ShareMail> {
  const dir = join(E2E.dataDir, 'outbox');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const mails = readdirSync(dir)
      .sort()
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .filter((eml) => new RegExp(`^To: .*${address.replace(/[.+]/g, '\\$&')}`, 'im').test(eml))
      .slice(after)
      .map(parseMail)
      .filter((m) => /^Verification code: \d{6}$/m.test(m.text));
    if (mails.length > 0) return mails.at(-1)!;
    if (Date.now() > deadline) throw new Error(`no share mail to ${address}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const uploadViaApi = (token: string, caption: string): Promise<string> =>
  uploadFileViaApi(token, { caption, name: 'photo.jpg', type: 'image/jpeg', data: readFileSync(PHOTO) });

async function pageAt(browser: Browser, width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: width > 800 ? 800 : 844 } });
  return context.newPage();
}

const card = (page: Page, caption: string) => page.getByRole('article', { name: caption });

for (const width of [1280, 390]) {
  test(`a share mail names the image, sharer, end and labelled code, and its link opens the prefilled Verify dialog (${width} px)`, async ({
    browser,
  }) => {
    test.setTimeout(180_000);
    const doctor = uniqueUser('healthProvider');
    const colleague = uniqueUser('healthProvider');
    await approveViaApi(await registerViaApi(doctor));
    await approveViaApi(await registerViaApi(colleague));
    const caption = `Knee MRI left ${Date.now().toString(36)}`;
    await uploadViaApi((await signInViaApi(doctor.email, doctor.password)).token, caption);

    // --- The provider shares the image from its card.
    const doc = await pageAt(browser, width);
    await loginThroughUi(doc, doctor.email, doctor.password);
    await expect(doc).toHaveURL(/\/dashboard/, { timeout: 10_000 });
    await doc.goto('/view-images');
    await card(doc, caption).getByRole('button', { name: 'Share', exact: true }).click();
    const shareDialog = doc.getByRole('dialog');
    await shareDialog.getByLabel('Search users by name').fill(colleague.lastname);
    await shareDialog.getByRole('button', { name: new RegExp(colleague.lastname) }).click();
    const before = mailCount(colleague.email);
    await shareDialog.getByRole('button', { name: 'Share', exact: true }).click();
    await expect(doc.getByText('Image shared successfully').first()).toBeVisible();

    // --- The mail says what was shared, by whom and until when; the code is labelled, not in the link.
    const mail = await waitForShareMailParts(colleague.email, before);
    const sharer = `${doctor.firstname} ${doctor.lastname}`;
    expect(mail.subject).toBe(`${sharer} shared “${caption}” with you on MedShare`);
    expect(mail.text).toMatch(new RegExp(`^Image: ${caption}$`, 'm'));
    expect(mail.text).toMatch(new RegExp(`^Shared by: ${sharer}$`, 'm'));
    expect(mail.text).toMatch(/^Share ends: .+ \(Asia\/Karachi\)$/m);
    const code = /^Verification code: (\d{6})$/m.exec(mail.text)![1]!;
    const sharingId = /^Sharing id: ([0-9a-f-]{36})$/m.exec(mail.text)![1]!;
    const link = /^Verify this image: (\S+)$/m.exec(mail.text)![1]!;
    expect(link).toBe(`${E2E.baseUrl}/view-images?verify=${sharingId}`);
    expect(mail.html).toContain(`href="${link}"`);
    expect(link).not.toContain(code);

    // The HTML mail as a mail client shows it.
    const mailView = await pageAt(browser, width);
    await mailView.setContent(mail.html);
    await expect(mailView.getByRole('link', { name: 'Verify this image' })).toBeVisible();
    await screenshot(mailView, 'share-mail');
    await mailView.context().close();

    // --- Signed out, the recipient follows the link, signs in and lands on the prefilled Verify dialog.
    const col = await pageAt(browser, width);
    await col.goto(link);
    await expect(col).toHaveURL(/\/login/);
    await loginThroughUi(col, colleague.email, colleague.password);
    const dialog = col.getByRole('dialog', { name: 'Verify image' });
    await expect(dialog).toBeVisible({ timeout: 15_000 });
    await expect(dialog.getByLabel(/^Image sharing id/)).toHaveValue(sharingId);
    await expect(dialog.getByText(caption)).toBeVisible();
    // The parameter is consumed: a reload does not open the dialog again.
    await expect(col).toHaveURL(/\/view-images$/);
    await screenshot(col, 'share-mail-verify-dialog');
    await dialog.getByLabel(/^Verification code/).fill(code);
    await dialog.getByRole('button', { name: 'Verify' }).click();
    // The toast first, as the app shows it (then closes the dialog): a CI run that looked only after
    // the dialog had gone found it already closing.
    await expect(col.getByText('Image verified successfully').first()).toBeVisible();
    await expect(dialog).toBeHidden();
    await expect(card(col, caption).getByRole('img', { name: `Preview of ${caption}` })).toBeVisible({
      timeout: 15_000,
    });
    await screenshot(col, 'share-mail-verified');

    // --- The same link again: the image is open already; a link for someone else's share says so.
    await col.goto(`/view-images?verify=${sharingId}`);
    await expect(col.getByText('This image is already verified: it is open below.').first()).toBeVisible();
    await expect(col.getByRole('dialog', { name: 'Verify image' })).toHaveCount(0);
    await col.goto('/view-images?verify=00000000-0000-4000-8000-000000000000');
    const notYours = col.getByText(/The image of this link is not among the images shared with you/).first();
    await expect(notYours).toBeVisible();
    await expect(col.getByRole('dialog', { name: 'Verify image' })).toHaveCount(0);
    await expect(col).toHaveURL(/\/view-images$/);
    await col.waitForTimeout(800); // the toast slides in
    await screenshot(col, 'share-mail-unknown-link');
    await col.goto('/view-images?verify=not-a-sharing-id');
    await expect(notYours).toBeVisible();
    await expect(col.getByRole('heading', { name: 'Shared Images' })).toBeVisible();
  });
}

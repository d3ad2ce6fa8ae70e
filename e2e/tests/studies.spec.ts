import { type Browser, type Page, expect, test } from '@playwright/test';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser, uploadFileViaApi } from '../support/api.ts';
import { generateStudy } from '../support/dicom-study.ts';
import { E2E } from '../support/env.ts';
import { mailCount, waitForShareMail } from '../support/mail.ts';
import { signInWithSession, screenshot } from '../support/ui.ts';

/**
 * Studies (docs/product.md › View images): a provider uploads a multi-series study through the API,
 * sees it as one study card, opens the study page, shares the whole study with a patient, and the
 * patient enters the one code once and sees every image. At 1280×800 and at 390×844.
 */

const upload = (token: string, file: { name: string; data: Buffer }, caption: string, patientId: string) =>
  uploadFileViaApi(token, { caption, name: file.name, type: 'application/dicom', data: file.data, patientId });

async function signedIn(
  browser: Browser,
  viewport: { width: number; height: number },
  u: { email: string; password: string },
) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await signInWithSession(page, u.email, u.password);
  await expect(page).not.toHaveURL(/\/(login|verify-account)/);
  return page;
}

async function noSidewaysScroll(page: Page, width: number) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
}

for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`a study is one card, opens by series and is shared whole under one code (${viewport.width}×${viewport.height})`, async ({
    browser,
  }) => {
    const provider = uniqueUser('healthProvider');
    await approveViaApi(await registerViaApi(provider));
    const owner = uniqueUser('patient');
    const ownerId = await registerViaApi(owner);
    const recipient = uniqueUser('patient');
    await registerViaApi(recipient);
    const { token } = await signInViaApi(provider.email, provider.password);

    // Four instances in two series, uploaded for the patient: one patient share, one mail.
    const caption = `Chest CT ${viewport.width}`;
    const study = generateStudy([2, 2]);
    const ownerMails = mailCount(owner.email);
    const ids: string[] = [];
    for (const instance of study.instances) ids.push(await upload(token, instance, caption, ownerId));
    await waitForShareMail(owner.email, ownerMails);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(mailCount(owner.email) - ownerMails).toBe(1);

    const page = await signedIn(browser, viewport, provider);
    await page.goto('/view-images');
    const studies = page.getByRole('region', { name: 'DICOM Studies' });
    const card = studies.getByRole('article', { name: caption });
    await expect(card).toHaveCount(1);
    await expect(card).toContainText('2 series · 4 images');
    await expect(card).toContainText('CT CHEST WITH CONTRAST');
    // None of the four instances is listed again as an image card.
    await expect(page.getByRole('region', { name: 'Uploaded Images' }).getByRole('article')).toHaveCount(0);
    await noSidewaysScroll(page, viewport.width);
    await screenshot(page, 'studies-view-images');

    await card.getByRole('link', { name: `Open study ${caption}` }).click();
    await expect(page).toHaveURL(new RegExp(`/studies/${study.studyUid.replace(/\./g, '\\.')}$`));
    await expect(page.getByRole('heading', { level: 1, name: caption })).toBeVisible();
    const series = page.getByRole('list', { name: 'Series' }).getByRole('link');
    await expect(series).toHaveCount(2);
    await expect(series.first()).toHaveAttribute('aria-label', 'Open Series 1: Series 1 (2 images)');
    await expect(series.first()).toHaveAttribute(
      'href',
      new RegExp(`/studies/${study.studyUid}/series/2\\.25\\.\\d+$`),
    );
    await noSidewaysScroll(page, viewport.width);
    await screenshot(page, 'studies-study-page');

    // Share the whole study with another patient.
    const recipientMails = mailCount(recipient.email);
    await page.getByRole('button', { name: 'Share study' }).click();
    const dialog = page.getByRole('dialog', { name: `Share study “${caption}”` });
    await dialog.getByLabel('Search users by name').fill(recipient.lastname);
    await dialog.getByRole('button', { name: new RegExp(recipient.lastname) }).click();
    await screenshot(page, 'studies-share-dialog');
    await dialog.getByRole('button', { name: 'Share study' }).click();
    await expect(page.getByText('Study shared successfully')).toBeVisible();
    await expect(dialog).toBeHidden();
    const { sharingId, code } = await waitForShareMail(recipient.email, recipientMails);

    // The recipient: one card, not verified; one code opens every image.
    const other = await signedIn(browser, viewport, recipient);
    await other.goto('/view-images');
    const shared = other.getByRole('region', { name: 'DICOM Studies' }).getByRole('article', { name: caption });
    await expect(shared).toContainText('Study not Verified');
    await expect(shared).not.toContainText('CT CHEST WITH CONTRAST');
    await shared.getByRole('button', { name: 'Verify' }).click();
    const verify = other.getByRole('dialog', { name: 'Verify study' });
    await expect(verify.getByLabel(/^Study sharing id/)).toHaveValue(sharingId);
    await verify.getByLabel(/^Verification code/).fill(code);
    await verify.getByRole('button', { name: 'Verify' }).click();
    await expect(other.getByText('Study verified successfully')).toBeVisible();
    await shared.getByRole('link', { name: `Open study ${caption}` }).click();
    await expect(other.getByRole('heading', { level: 1, name: caption })).toBeVisible();
    await expect(other.getByText('2 series · 4 images')).toBeVisible();
    await expect(other.getByRole('list', { name: 'Series' }).getByRole('link')).toHaveCount(2);
    await noSidewaysScroll(other, viewport.width);
    await screenshot(other, 'studies-recipient-study-page');

    // Every instance opens for the recipient now.
    const { token: recipientToken } = await signInViaApi(recipient.email, recipient.password);
    for (const id of ids) {
      const res = await fetch(`${E2E.baseUrl}/api/images/${id}/content`, {
        headers: { authorization: `Bearer ${recipientToken}` },
      });
      expect(res.status).toBe(200);
    }
    await page.context().close();
    await other.context().close();
  });
}

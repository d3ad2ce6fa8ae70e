import { type Browser, type Page, expect, test } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { approveViaApi, registerViaApi, uniqueUser } from '../support/api.ts';
import { mailCount, waitForShareMail } from '../support/mail.ts';
import { signInWithSession, screenshot } from '../support/ui.ts';
import { expectAccessible } from '../support/accessibility.ts';

const PHOTO = fileURLToPath(new URL('../../server/test/fixtures/other/photo_hopper_portrait.jpg', import.meta.url));

async function signedInPage(browser: Browser, email: string, password: string, width = 1280): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: width > 800 ? 900 : 844 } });
  const page = await context.newPage();
  await signInWithSession(page, email, password);
  await expect(page).not.toHaveURL(/verify-account/, { timeout: 10_000 });
  return page;
}

const card = (page: Page, caption: string) => page.getByRole('article', { name: caption });

async function verifyThroughDialog(page: Page, caption: string, share: { sharingId: string; code: string }) {
  await card(page, caption).getByRole('button', { name: 'Verify' }).click();
  const dialog = page.getByRole('dialog', { name: 'Verify image' });
  // The sharing id is prefilled from the card; it must be the one that was mailed.
  await expect(dialog.getByLabel(/^Image sharing id/)).toHaveValue(share.sharingId);
  await dialog.getByLabel(/^Verification code/).fill(share.code);
  await dialog.getByRole('button', { name: 'Verify' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Image verified successfully').first()).toBeVisible();
}

test('upload for a patient with progress, verify by mail code, share with a provider, revoke, delete', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const doctor = uniqueUser('healthProvider');
  const colleague = uniqueUser('healthProvider');
  const patient = uniqueUser('patient');
  await approveViaApi(await registerViaApi(doctor));
  await approveViaApi(await registerViaApi(colleague));
  await registerViaApi(patient);
  const caption = `Chest X-ray ${Date.now().toString(36)}`;

  // --- The provider uploads a JPEG for the patient; a throttled upload shows the real progress bar.
  const doc = await signedInPage(browser, doctor.email, doctor.password);
  await doc.goto('/upload');
  await expect(doc.getByRole('heading', { name: 'Upload Medical Image' })).toBeVisible();
  await doc.getByRole('button', { name: 'Upload Image' }).click();
  await expect(doc.getByText('Please select a file to upload.').first()).toBeVisible();
  await doc.locator('input[type=file]').setInputFiles(PHOTO);
  await expect(doc.getByRole('img', { name: /^Preview of photo_hopper_portrait\.jpg/ })).toBeVisible();
  await doc.getByLabel(/^Caption/).fill(caption);
  await doc.getByRole('combobox', { name: 'Patient' }).fill(patient.lastname);
  await doc.getByRole('option', { name: new RegExp(patient.lastname) }).click();
  await screenshot(doc, 'upload');
  await expectAccessible(doc);

  const cdp = await doc.context().newCDPSession(doc);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 200,
    downloadThroughput: -1,
    uploadThroughput: 2048,
  });
  const patientMails = mailCount(patient.email);
  await doc.getByRole('button', { name: 'Upload Image' }).click();
  await expect(doc.getByRole('button', { name: 'Uploading...' })).toBeDisabled();
  await expect(doc.getByRole('progressbar', { name: 'Upload progress' })).toBeVisible();
  await expect(doc.getByText('Image uploaded successfully!').first()).toBeVisible({ timeout: 20_000 });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  await expect(doc.getByRole('button', { name: 'Upload Image' })).toBeEnabled();

  // The uploader sees the picture in Uploaded Images.
  await doc.goto('/view-images');
  const own = card(doc, caption);
  await expect(
    doc.getByRole('region', { name: 'Uploaded Images' }).getByRole('article', { name: caption }),
  ).toBeVisible();
  await expect(own.getByRole('img', { name: `Preview of ${caption}` })).toBeVisible({ timeout: 15_000 });
  for (const name of ['View', 'Share', 'Ai'])
    await expect(
      own.getByRole('button', { name, exact: true }).or(own.getByRole('link', { name, exact: true })),
    ).toBeVisible();
  await expect(doc.getByText('1 / 1')).toBeVisible();
  await expect(doc.getByRole('button', { name: 'Previous page' })).toBeDisabled();
  await expect(doc.getByRole('button', { name: 'Next page' })).toBeDisabled();
  await screenshot(doc, 'view-images');
  await expectAccessible(doc);

  // --- The patient sees 'Image not Verified' until the mailed code is entered.
  const pat = await signedInPage(browser, patient.email, patient.password);
  await expect(pat).toHaveURL(/\/view-images/, { timeout: 10_000 });
  await expect(pat.getByRole('heading', { name: 'Uploaded Images' })).toHaveCount(0);
  const patCard = card(pat, caption);
  await expect(patCard.getByText('Image not Verified')).toBeVisible();
  await screenshot(pat, 'view-images-patient-pending');
  await expect(patCard.getByRole('button', { name: 'View' })).toHaveCount(0);
  await expect(patCard.getByRole('button', { name: /Share|Delete/ })).toHaveCount(0);
  await expectAccessible(pat);
  const patientShare = await waitForShareMail(patient.email, patientMails);
  await verifyThroughDialog(pat, caption, patientShare);
  await expect(patCard.getByRole('img', { name: `Preview of ${caption}` })).toBeVisible({ timeout: 15_000 });

  // The full-size viewer zooms with buttons and keys.
  await patCard.getByRole('button', { name: 'View' }).click();
  const viewer = pat.getByRole('dialog');
  await expect(viewer.getByRole('img', { name: caption })).toBeVisible();
  await viewer.getByRole('button', { name: 'Zoom in' }).click();
  await expect(viewer.getByText('125%')).toBeVisible();
  await screenshot(pat, 'image-viewer');
  await viewer.getByRole('group').press('0');
  await expect(viewer.getByText('100%')).toBeVisible();
  await viewer.getByRole('button', { name: 'Close viewer' }).click();

  // --- The provider shares with a colleague, who verifies with the mailed code.
  await doc.reload();
  await own.getByRole('button', { name: 'Share', exact: true }).click();
  const shareDialog = doc.getByRole('dialog');
  await shareDialog.getByLabel('Search users by name').fill(colleague.lastname);
  // The search is debounced: pick from the list once it holds only the match, and see it picked.
  const found = shareDialog.getByRole('list', { name: 'Users to share with' }).getByRole('button');
  await expect(found).toHaveCount(1);
  await found.click();
  await expect(shareDialog.getByText(`Share with ${colleague.firstname} ${colleague.lastname}`)).toBeVisible();
  await expect(shareDialog.getByText('Health Provider').first()).toBeVisible();
  await screenshot(doc, 'share-dialog');
  await expectAccessible(doc);
  const colleagueMails = mailCount(colleague.email);
  await shareDialog.getByRole('button', { name: 'Share', exact: true }).click();
  await expect(shareDialog).toBeHidden();
  await expect(doc.getByText('Image shared successfully').first()).toBeVisible();

  const col = await signedInPage(browser, colleague.email, colleague.password, 390);
  await col.goto('/view-images');
  const colCard = card(col, caption);
  await expect(colCard.getByText('Image not Verified')).toBeVisible();
  await verifyThroughDialog(col, caption, await waitForShareMail(colleague.email, colleagueMails));
  await expect(colCard.getByRole('img', { name: `Preview of ${caption}` })).toBeVisible({ timeout: 15_000 });
  await screenshot(col, 'view-images');
  await expectAccessible(col);

  // The uploader's page at 390 px.
  await doc.setViewportSize({ width: 390, height: 844 });
  await doc.goto('/upload');
  await doc.locator('input[type=file]').setInputFiles(PHOTO);
  await screenshot(doc, 'upload');
  await doc.goto('/view-images');

  // --- The provider revokes the colleague's share: the colleague loses the content.
  await own.getByRole('button', { name: 'Share', exact: true }).click();
  await shareDialog
    .getByRole('button', { name: `Revoke share with ${colleague.firstname} ${colleague.lastname}` })
    .click();
  await expect(doc.getByText('Share revoked').first()).toBeVisible();
  await expect(
    shareDialog.getByRole('button', { name: `Revoke share with ${patient.firstname} ${patient.lastname}` }),
  ).toHaveCount(1); // the patient's share stays
  await shareDialog.getByRole('button', { name: 'Cancel' }).click();
  await col.reload();
  await expect(colCard.getByText('This share was revoked')).toBeVisible();
  await expect(colCard.getByRole('button', { name: 'View' })).toHaveCount(0);

  // --- The provider deletes the image; it is gone for the patient too.
  await own.getByRole('button', { name: `Delete ${caption}` }).click();
  await doc.getByRole('dialog', { name: 'Delete image?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(doc.getByText('Image deleted successfully').first()).toBeVisible();
  await expect(own).toHaveCount(0);
  await pat.reload();
  await expect(card(pat, caption)).toHaveCount(0);
});

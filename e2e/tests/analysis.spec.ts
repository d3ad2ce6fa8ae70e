import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser, uploadFileViaApi } from '../support/api.ts';
import { signInWithSession, screenshot } from '../support/ui.ts';
import { expectAccessible } from '../support/accessibility.ts';

const PHOTO = new URL('../../server/test/fixtures/other/photo_hopper_portrait.jpg', import.meta.url);

/** Uploads a picture the way the web app does: multipart with the bearer header. */
const uploadViaApi = (token: string): Promise<string> =>
  uploadFileViaApi(token, {
    caption: 'Portrait for analysis',
    name: 'portrait.jpg',
    type: 'image/jpeg',
    data: readFileSync(PHOTO),
  });

for (const width of [1280, 390]) {
  test.describe(`AI analysis at ${width} px`, () => {
    test.use({ viewport: { width, height: width > 800 ? 900 : 844 } });

    test('a provider sees the technical report, the disclaimer and no diagnosis, and can re-run it', async ({
      page,
    }) => {
      const doc = uniqueUser('healthProvider');
      await approveViaApi(await registerViaApi(doc));
      const { token } = await signInViaApi(doc.email, doc.password);
      const imageId = await uploadViaApi(token);

      await signInWithSession(page, doc.email, doc.password);
      await expect(page).toHaveURL(/\/dashboard/);
      await page.goto(`/ai-analysis/${imageId}`);

      await expect(page.getByRole('heading', { name: 'AI Medical Analysis', level: 1 })).toBeVisible();
      await expect(page.getByText(/^Technical report for a JPEG image: 128 × 128 pixels/)).toBeVisible();
      await expect(page.getByText('Not a diagnosis')).toBeVisible();
      await expect(page.getByText(/It is not a diagnosis/)).toBeVisible();
      await expect(page.getByText(/No diagnostic model is configured/)).toBeVisible();
      const differential = page.getByRole('region', { name: 'Differential Diagnosis' });
      await expect(differential).toContainText('never suggests a diagnosis');
      await expect(page.getByRole('region', { name: 'Confidence Score' })).toContainText('0%');
      await expect(page.getByText('Local technical report (no diagnostic model)', { exact: true })).toBeVisible();
      await expect(page.getByText(/Analysis generated at/)).toBeVisible();
      await screenshot(page, 'ai-analysis');

      await expectAccessible(page);

      await page.getByRole('button', { name: 'Re-run' }).click();
      const history = page.getByRole('region', { name: 'Earlier results' });
      await expect(history.getByRole('button')).toHaveCount(2);
      await expect(history.getByRole('button').first()).toContainText('(latest)');
    });

    test('an unknown image says it is not found or not available', async ({ page }) => {
      const doc = uniqueUser('healthProvider');
      await approveViaApi(await registerViaApi(doc));
      await signInWithSession(page, doc.email, doc.password);
      await expect(page).toHaveURL(/\/dashboard/);
      await page.goto('/ai-analysis/1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b');
      await expect(page.getByText('Image not found or not available')).toBeVisible();
      await page.goto('/ai-analysis');
      await expect(page.getByRole('link', { name: 'View Images' }).last()).toBeVisible();
      await screenshot(page, 'ai-analysis-no-id');
    });
  });
}

import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser, uploadFileViaApi } from '../support/api.ts';
import { screenshot, signInWithSession } from '../support/ui.ts';

const PHOTO = readFileSync(
  fileURLToPath(new URL('../../server/test/fixtures/other/photo_hopper_portrait.jpg', import.meta.url)),
);
const CAPTIONS = Array.from({ length: 6 }, (_, i) => `Near screen knee ${i + 1}`);

/**
 * View Images draws a card when it is near the screen (docs/architecture.md › Frontend, "First render
 * of View Images"): on a phone the cards below the first screen are outlines with their captions until
 * the user scrolls; on a desktop all six are on screen and drawn at once.
 */
for (const { width, height } of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`cards below the screen are drawn as the user scrolls to them (${width}×${height})`, async ({ browser }) => {
    const provider = uniqueUser('healthProvider');
    await approveViaApi(await registerViaApi(provider));
    const { token } = await signInViaApi(provider.email, provider.password);
    for (const caption of CAPTIONS)
      await uploadFileViaApi(token, { caption, name: 'knee.jpg', type: 'image/jpeg', data: PHOTO });

    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    await signInWithSession(page, provider.email, provider.password);
    await page.goto('/view-images');
    const uploaded = page.getByRole('region', { name: 'Uploaded Images' });
    // Newest first: the last upload is the first card, drawn with its preview.
    const first = uploaded.getByRole('article', { name: CAPTIONS[5] });
    await expect(first.getByRole('img', { name: `Preview of ${CAPTIONS[5]}` })).toBeVisible();

    const outlines = uploaded.locator('.card-outline');
    if (width > 800) {
      await expect(uploaded.getByRole('article')).toHaveCount(6);
      await expect(outlines).toHaveCount(0);
    } else {
      // Two cards fill a 390 × 844 screen; the four below are outlines that still name their image.
      await expect(uploaded.getByRole('article')).toHaveCount(2);
      await expect(outlines).toHaveCount(4);
      await expect(outlines.getByRole('heading', { name: CAPTIONS[0] })).toHaveCount(1);
      // A keyboard user tabbing on from the last drawn card lands in the next card, not past its outline.
      await uploaded.getByRole('article', { name: CAPTIONS[4] }).getByRole('link', { name: 'Ai' }).focus();
      await page.keyboard.press('Tab');
      await expect(uploaded.getByRole('article', { name: CAPTIONS[3] }).getByRole('button').first()).toBeFocused();
      await page.mouse.wheel(0, 600);
      // Within a screen of the view now: the next cards are drawn, buttons and all.
      await expect(
        uploaded.getByRole('article', { name: CAPTIONS[2] }).getByRole('button', { name: 'Share', exact: true }),
      ).toBeVisible();
      const last = uploaded.getByRole('heading', { name: CAPTIONS[0] });
      await last.scrollIntoViewIfNeeded();
      await expect(
        uploaded.getByRole('article', { name: CAPTIONS[0] }).getByRole('button', { name: 'View', exact: true }),
      ).toBeVisible();
      await expect(outlines).toHaveCount(0);
    }
    // Last: a full-page capture resizes the view, which draws every card.
    await screenshot(page, 'cards-near-screen');
    // The pager below the cards is there either way.
    await expect(page.getByRole('navigation', { name: 'Image pages' })).toBeAttached();
    await context.close();
  });
}

import { expect, test } from '@playwright/test';
import { expectAccessible } from '../support/accessibility.ts';

// The check every screen test ends with must still see what it is for: a cheaper way of running axe
// (support/accessibility.ts) that found nothing would pass every test.
test('the accessibility check fails on an unnamed button and on grey-on-grey text', async ({ page }) => {
  await page.setContent('<main><h1>Check</h1><button></button><p style="color:#777;background:#888">faint</p></main>');
  const failure = await expectAccessible(page).then(
    () => null,
    (err: Error) => err.message,
  );
  expect(failure).toContain('button-name');
  expect(failure).toContain('color-contrast');
  await page.setContent(
    '<html lang="en"><title>Check</title><main><h1>Check</h1><button>Go</button><p>plain</p></main></html>',
  );
  await expectAccessible(page);
});

import { AxeBuilder } from '@axe-core/playwright';
import { type Page, expect } from '@playwright/test';

/**
 * axe-core: no serious or critical violation on the page as it stands.
 *
 * `axe.run` in the page (legacy mode) instead of a partial run per frame finished in a new blank
 * page, and only violations reported back: the same rules on the same DOM at about half the cost
 * (1.1–1.8 s a check before, 0.5–0.8 s after, on people.spec.ts). Legacy mode skips cross-origin
 * frames, which the app has none of (docs/decisions.md › The e2e browser).
 */
export async function expectAccessible(page: Page) {
  const result = await new AxeBuilder({ page })
    .setLegacyMode(true)
    .options({ resultTypes: ['violations'] })
    .analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

import type { BrowserContext, CDPSession, Page } from '@playwright/test';

/** Lighthouse's phone link: 150 ms round trips, 1.6 Mbit/s down (less the 10 % it leaves for overhead). */
const SLOW_LINK = {
  offline: false,
  latency: 150,
  downloadThroughput: (1.6e6 / 8) * 0.9,
  uploadThroughput: (0.75e6 / 8) * 0.9,
};
const FULL_SPEED = { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 };

/**
 * Records the page's layout shifts from its first document on (the Layout Instability API, shifts
 * after input left out, as Cumulative Layout Shift counts them) and slows its link, so that the
 * page's reads answer one after another as they do on a phone. `settle()` restores the link and
 * returns every shift's score: a page whose parts arrive at different times must not move what is
 * already drawn ("good" is a total under 0.1).
 */
export async function watchLayoutShifts(context: BrowserContext, page: Page) {
  await page.addInitScript(() => {
    const shifts: number[] = [];
    Object.assign(window, { layoutShifts: shifts });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
        if (!entry.hadRecentInput) shifts.push(entry.value);
    }).observe({ type: 'layout-shift', buffered: true });
  });
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', SLOW_LINK);
  return {
    async settle(): Promise<number[]> {
      await cdp.send('Network.emulateNetworkConditions', FULL_SPEED);
      await page.waitForTimeout(500);
      return page.evaluate(() => (window as unknown as { layoutShifts: number[] }).layoutShifts);
    },
  };
}

export const total = (shifts: number[]) => shifts.reduce((sum, value) => sum + value, 0);

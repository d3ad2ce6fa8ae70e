/**
 * Chromium's first `Intl` object in a renderer process costs ~30–50 ms (ICU's locale and time zone
 * data are initialised), on a 4x-slowed phone 120–220 ms of the main thread; every later one, of any
 * locale, time zone or kind, well under 1 ms. That initialisation is shared by every thread of the
 * process, so a worker that formats one date takes it off the main thread: measured in Debian's
 * Chromium, the main thread's first `Intl.DateTimeFormat` then took 0.3–3 ms instead of 35–55
 * (bench/RESULTS.md › Issues 16 and 17: reads off libuv's pool, ICU's start-up off the main thread). Where no worker can start, one
 * formatter is built here instead, so that the cost falls in the start-up rather than in the render
 * that first shows a date.
 *
 * Resolves once the initialisation is done (or failed: the first real date then pays as before).
 */
export function warmIntl(): Promise<void> {
  if (typeof Worker === 'undefined') {
    new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(0);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    try {
      const worker = new Worker(new URL('./warm-intl.worker.ts', import.meta.url), { type: 'module' });
      worker.addEventListener('message', () => resolve());
      worker.addEventListener('error', () => resolve());
    } catch {
      resolve();
    }
  });
}

import { afterEach, describe, expect, it, vi } from 'vitest';
import { warmIntl } from './warm-intl';

/** A stand-in for the browser's Worker: records what it was started with, and answers as told. */
function fakeWorker(answer: 'message' | 'error' | 'throw' | 'never') {
  const started: { url: string; options: WorkerOptions | undefined }[] = [];
  class FakeWorker extends EventTarget {
    constructor(url: URL | string, options?: WorkerOptions) {
      super();
      if (answer === 'throw') throw new DOMException('blocked by the policy', 'SecurityError');
      started.push({ url: String(url), options });
      if (answer !== 'never') queueMicrotask(() => this.dispatchEvent(new Event(answer)));
    }
  }
  vi.stubGlobal('Worker', FakeWorker);
  return started;
}

const settled = (promise: Promise<void>) =>
  Promise.race([promise.then(() => 'resolved'), new Promise((r) => setTimeout(() => r('pending'), 20))]);

describe('warmIntl', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('starts the warm-up worker as a module and resolves once it has answered', async () => {
    const started = fakeWorker('message');
    await expect(settled(warmIntl())).resolves.toBe('resolved');
    expect(started).toHaveLength(1);
    expect(started[0]!.url).toMatch(/\/warm-intl\.worker\.ts\b/);
    expect(started[0]!.options).toEqual({ type: 'module' });
  });

  it('waits while the worker runs', async () => {
    fakeWorker('never');
    await expect(settled(warmIntl())).resolves.toBe('pending');
  });

  it('resolves, never rejects, when the worker fails or cannot start (the first date then pays as before)', async () => {
    fakeWorker('error');
    await expect(settled(warmIntl())).resolves.toBe('resolved');
    fakeWorker('throw');
    await expect(settled(warmIntl())).resolves.toBe('resolved');
  });

  it('without workers, builds a formatter at once', async () => {
    vi.stubGlobal('Worker', undefined);
    const built = vi.spyOn(Intl, 'DateTimeFormat');
    await expect(settled(warmIntl())).resolves.toBe('resolved');
    expect(built).toHaveBeenCalledTimes(1);
    built.mockRestore();
  });
});

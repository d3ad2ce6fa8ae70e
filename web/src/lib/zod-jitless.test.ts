import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

describe('zod-jitless', () => {
  // Each test starts as a page does: no zod loaded, no configuration yet.
  beforeEach(() => {
    delete (globalThis as { __zod_globalConfig?: unknown }).__zod_globalConfig;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it('turns zod’s JIT off through the global zod reads at load: schemas are built and parsed without new Function', async () => {
    const made = vi.spyOn(globalThis, 'Function');
    await import('./zod-jitless');
    const { z } = await import('zod');
    expect(z.config().jitless).toBe(true);
    const schema = z.object({ name: z.string(), count: z.number().int() });
    expect(schema.parse({ name: 'CT', count: 3 })).toEqual({ name: 'CT', count: 3 });
    expect(() => schema.parse({ name: 1 })).toThrow();
    expect(made).not.toHaveBeenCalled();
  });

  it('keeps working when zod was loaded first: its configuration object is changed, not replaced', async () => {
    const { z } = await import('zod');
    await import('./zod-jitless');
    expect(z.config().jitless).toBe(true);
  });
});

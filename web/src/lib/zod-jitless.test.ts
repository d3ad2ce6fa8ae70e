import { afterEach, describe, expect, it, vi } from 'vitest';

describe('zod-jitless', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it('turns zod’s JIT off without importing zod: schemas are built and parsed without new Function', async () => {
    const made = vi.spyOn(globalThis, 'Function');
    await import('./zod-jitless');
    const { z } = await import('zod');
    expect(z.config().jitless).toBe(true);
    const schema = z.object({ name: z.string(), count: z.number().int() });
    expect(schema.parse({ name: 'CT', count: 3 })).toEqual({ name: 'CT', count: 3 });
    expect(() => schema.parse({ name: 1 })).toThrow();
    expect(made).not.toHaveBeenCalled();
  });
});

import { defineConfig, mergeConfig } from 'vitest/config';
import viteConfig from './vite.config.ts';

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      name: 'web',
      environment: 'jsdom',
      include: ['src/**/*.test.{ts,tsx}'],
      setupFiles: ['./src/testing/setup-tests.ts'],
      restoreMocks: true,
      // Typing through whole forms in jsdom takes ~1 s; CI machines under load can need far more.
      testTimeout: 15_000,
      unstubGlobals: true,
    },
  }),
);

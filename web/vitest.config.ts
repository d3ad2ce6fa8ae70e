import { defineConfig, mergeConfig } from 'vitest/config';
import viteConfig from './vite.config.ts';

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      name: 'web',
      environment: 'jsdom',
      // Worker threads, not forked processes: each file still gets a fresh module graph and jsdom,
      // at half the CPU (121 s against 218 s wall for the 63 files on the 2-core CI machine).
      pool: 'threads',
      include: ['src/**/*.test.{ts,tsx}'],
      setupFiles: ['./src/testing/setup-tests.ts'],
      restoreMocks: true,
      // Typing through whole forms in jsdom takes ~1 s; CI machines under load can need far more.
      testTimeout: 15_000,
      unstubGlobals: true,
    },
  }),
);

import { globSync, readFileSync } from 'node:fs';
import { defineConfig, mergeConfig } from 'vitest/config';
import viteConfig from './vite.config.ts';

const TEST_FILES = 'src/**/*.test.{ts,tsx}';

/**
 * Files run each in their own module graph: those with fake timers, those that load modules afresh
 * (`vi.resetModules`, as lib/store.test.ts does to create the store at start-up again), and those that
 * mock a module (`vi.mock`: in a shared graph a module loaded by an earlier file keeps the real one). The
 * app's one store (src/lib/store.ts) batches notifications with a timer; a fake timer uninstalled
 * before it fired leaves the store never notifying again; a reset graph gives later files another
 * store and MSW server. With a shared graph every later file would inherit either.
 */
const ownGraphFiles = globSync(TEST_FILES, { cwd: import.meta.dirname }).filter((file) =>
  /useFakeTimers|resetModules|vi\.mock\(/.test(readFileSync(new URL(file, import.meta.url), 'utf8')),
);

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      environment: 'jsdom',
      // Worker threads, not forked processes: half the CPU (121 s against 218 s wall for the 63 files
      // on the 2-core CI machine).
      pool: 'threads',
      // As the root config's (a project run from there must agree with the others on it).
      maxWorkers: 3,
      setupFiles: ['./src/testing/setup-tests.ts'],
      restoreMocks: true,
      // Typing through whole forms in jsdom takes ~1 s; CI machines under load can need far more.
      testTimeout: 15_000,
      unstubGlobals: true,
      projects: [
        {
          extends: true,
          test: {
            name: 'web',
            include: [TEST_FILES],
            exclude: ownGraphFiles,
            // A worker runs its files one after another in one module graph and one jsdom instead of
            // importing React, MUI and the app again for each (166 → 46–61 s of CPU): the files that mock
            // or reload a module run in the other project, and src/testing/setup-tests.ts empties the store, the MSW server's answers and
            // storage after every test.
            isolate: false,
          },
        },
        { extends: true, test: { name: 'web-fake-timers', include: ownGraphFiles } },
      ],
    },
  }),
);

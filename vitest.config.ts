import { defineConfig } from 'vitest/config';

const serverProject = (name: string, db: 'pglite' | 'postgres') => ({
  test: {
    name,
    root: './server',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    env: { MEDSHARE_TEST_DB: db },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

/** Server suites run on PGlite always and on PostgreSQL too when TEST_DATABASE_URL is set (CI). */
export default defineConfig({
  test: {
    // Vitest's default is one worker per core minus one: a single worker on a 2-core CI machine, while
    // most server test time is spent waiting on PostgreSQL, spawned servers and timers.
    maxWorkers: 3,
    // CI sums the JSON reports into its closing 'N passed, N failed' line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.reports/vitest.json' }]] : ['default'],
    projects: [
      { test: { name: 'contracts', root: './contracts', include: ['src/**/*.test.ts'], environment: 'node' } },
      serverProject('server-pglite', 'pglite'),
      ...(process.env.TEST_DATABASE_URL ? [serverProject('server-postgres', 'postgres')] : []),
      './web/vitest.config.ts',
    ],
  },
});

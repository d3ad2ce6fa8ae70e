import { defineConfig, devices } from '@playwright/test';
import { existsSync } from 'node:fs';
import { E2E, E2E_WORKERS, serverOf } from './support/env.ts';

/**
 * Debian's headless shell (package chromium-headless-shell: the same Blink as `chromium`, without the
 * browser around it) when installed: the same two spec files took 83 s of its CPU against 135 s of
 * the full browser's in headless mode (docs/decisions.md › The e2e browser). It has no PDF viewer,
 * so the test file about a PDF shown inline runs in the full browser. CHROMIUM_PATH overrides both.
 */
const fullBrowser = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const shell =
  process.env.CHROMIUM_PATH ??
  (existsSync('/usr/bin/chromium-headless-shell') ? '/usr/bin/chromium-headless-shell' : fullBrowser);
const needsPdfViewer = /stored-content\.spec\.ts/;
const launchOptions = (executablePath: string) => ({
  executablePath,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
});

/** Runs against the built app (npm run build -w web) served by the real server on PGlite, in Debian's Chromium. */
export default defineConfig({
  testDir: './tests',
  fullyParallel: false,
  // One server per worker (support/env.ts), so files run side by side without sharing state.
  workers: E2E_WORKERS,
  retries: 0,
  // Generous: CI machines are shared; a slow step should fail on its own expect, not the test clock.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  outputDir: './test-results',
  reporter: process.env.CI ? [['list'], ['json', { outputFile: '../.reports/playwright.json' }]] : [['list']],
  use: {
    baseURL: E2E.baseUrl,
    // DOM snapshots without the screencast, which cost a third of Chromium's CPU; none in CI, whose
    // clone is gone when the run ends, so a trace there costs CPU and is never read (docs/decisions.md).
    trace: process.env.CI ? 'off' : { mode: 'retain-on-failure', screenshots: false, snapshots: true },
    screenshot: 'only-on-failure',
    // No half-faded toast for axe to measure, and no frames drawn for slides (web/src/index.css).
    reducedMotion: 'reduce',
  },
  projects: [
    {
      name: 'chromium',
      testIgnore: needsPdfViewer,
      use: { ...devices['Desktop Chrome'], channel: undefined, launchOptions: launchOptions(shell) },
    },
    {
      name: 'chromium-full',
      testMatch: needsPdfViewer,
      use: { ...devices['Desktop Chrome'], channel: undefined, launchOptions: launchOptions(fullBrowser) },
    },
  ],
  webServer: Array.from({ length: E2E_WORKERS }, (_, index) => serverOf(index)).map((server) => ({
    // The server's V8 flags and allocator setting (server/src/node-flags.ts; a test keeps this copy in step).
    command: `rm -rf ${server.dataDir} && GLIBC_TUNABLES=glibc.malloc.arena_max=2 node --max-semi-space-size=4 --wasm-num-compilation-tasks=1 --heap-growing-percent=50 ../server/src/main.ts`,
    url: `${server.baseUrl}/api/ready`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore' as const,
    stderr: 'pipe' as const,
    env: {
      PORT: String(server.port),
      HOST: '127.0.0.1',
      DATA_DIR: server.dataDir,
      MAIL_TRANSPORT: 'outbox',
      ADMIN_EMAIL: E2E.admin.email,
      ADMIN_PASSWORD: E2E.admin.password,
      PUBLIC_URL: server.baseUrl,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    },
  })),
});

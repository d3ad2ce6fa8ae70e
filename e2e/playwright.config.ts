import { defineConfig, devices } from '@playwright/test';
import { E2E } from './support/env.ts';

/** Runs against the built app (npm run build -w web) served by the real server on PGlite, in Debian's Chromium. */
export default defineConfig({
  testDir: './tests',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  // Generous: CI machines are shared; a slow step should fail on its own expect, not the test clock.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  outputDir: './test-results',
  reporter: process.env.CI ? [['list'], ['json', { outputFile: '../.reports/playwright.json' }]] : [['list']],
  use: {
    baseURL: E2E.baseUrl,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], channel: undefined } }],
  webServer: {
    // The server's V8 flags (server/src/node-flags.ts; a test keeps this copy in step).
    command: `rm -rf ${E2E.dataDir} && node --initial-old-space-size=256 ../server/src/main.ts`,
    url: `${E2E.baseUrl}/api/ready`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(E2E.port),
      HOST: '127.0.0.1',
      DATA_DIR: E2E.dataDir,
      MAIL_TRANSPORT: 'outbox',
      ADMIN_EMAIL: E2E.admin.email,
      ADMIN_PASSWORD: E2E.admin.password,
      PUBLIC_URL: E2E.baseUrl,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    },
  },
});

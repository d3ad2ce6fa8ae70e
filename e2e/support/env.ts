import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Playwright runs E2E_WORKERS workers (2 by default: the CI machine has 2 cores), and each talks to
 * its own server: its own port, data directory and mail outbox, so that one worker's settings edits,
 * mails and rate limits never reach another's tests. Playwright loads this file in every worker
 * with TEST_PARALLEL_INDEX set (0 … workers − 1); the main process starts every server.
 */
export const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS ?? 2));
const basePort = Number(process.env.E2E_PORT ?? 8181);
const baseDataDir = process.env.E2E_DATA_DIR ?? join(tmpdir(), 'medshare-e2e-data');

/** The server of worker `index`. */
export function serverOf(index: number) {
  const port = basePort + index;
  return { port, baseUrl: `http://localhost:${port}`, dataDir: `${baseDataDir}-${index}` };
}

export const E2E = {
  ...serverOf(Number(process.env.TEST_PARALLEL_INDEX ?? 0)),
  admin: { email: 'admin@e2e.medshare', password: 'E2e-admin-passphrase-1' },
  screenshotDir: new URL('../screenshots/', import.meta.url).pathname,
};

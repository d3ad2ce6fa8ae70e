import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = Number(process.env.E2E_PORT ?? 8181);

export const E2E = {
  port,
  baseUrl: `http://localhost:${port}`,
  dataDir: process.env.E2E_DATA_DIR ?? join(tmpdir(), 'medshare-e2e-data'),
  admin: { email: 'admin@e2e.medshare', password: 'E2e-admin-passphrase-1' },
  screenshotDir: new URL('../screenshots/', import.meta.url).pathname,
};

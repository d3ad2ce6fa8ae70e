/** Writes the OpenAPI document generated from the route schemas to docs/openapi.json (checked in; CI fails on drift). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';

export const OPENAPI_PATH = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

export async function generateOpenApi(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'medshare-openapi-'));
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      WEB_DIST: join(dataDir, 'none'),
    });
    config.database = { kind: 'pglite', dir: null };
    const app = await buildApp(config);
    await app.ready();
    const doc = JSON.stringify(app.swagger(), null, 2) + '\n';
    await app.close();
    return doc;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OPENAPI_PATH, await generateOpenApi());
  console.log(`wrote ${OPENAPI_PATH}`);
}

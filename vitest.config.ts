import { defineConfig } from 'vitest/config';

/**
 * Server suites whose outcome does not depend on the database engine: parsing, rendering, HTTP
 * framing, resource bounds, fuzzing and the DICOM peers' protocols. The database behind them is
 * incidental (setup only), so they run on PGlite alone, never again on PostgreSQL
 * (docs/architecture.md › Tests and CI).
 */
const ENGINE_INDEPENDENT = [
  'src/crypto/envelope.test.ts',
  'src/http/error-handler.test.ts',
  'src/http/logger.test.ts',
  'src/http/route-preloads.test.ts',
  'src/http/client-address.test.ts',
  'src/mail/templates.test.ts',
  'src/modules/auth/tokens.test.ts',
  'src/modules/auth/session-cache.test.ts',
  'src/storage/storage.test.ts',
  'src/modules/analysis/analysis.openai.test.ts',
  'src/modules/dicom/accept.test.ts',
  'src/modules/dicom/dataset-bounds.test.ts',
  'src/modules/dicom/deidentify.test.ts',
  'src/modules/dicom/deidentify.orthanc.test.ts',
  'src/modules/dicom/dicomweb-client.test.ts',
  'src/modules/dicom/dicomweb.orthanc.test.ts',
  'src/modules/dicom/memory-bounds.test.ts',
  'src/modules/dicom/qido-fields.test.ts',
  'src/modules/dicom/render.test.ts',
  'src/modules/dicom/render-dcmtk.test.ts',
  'src/modules/dicom/stow-bounds.test.ts',
  'src/modules/dicom/stow.orthanc.test.ts',
  'src/modules/dicom/thumbnail-frame.test.ts',
  'src/modules/images/photo-bounds.test.ts',
  'test/fuzz.test.ts',
  'test/headers.test.ts',
  'test/http.test.ts',
  'test/openapi.test.ts',
  'test/slow-clients.test.ts',
  'test/doc-references.test.ts',
];

/**
 * Suites where the engine itself is under test: the transaction port, durability across a crash or
 * a reopened data directory, backup and restore. They run on both engines; every other suite runs
 * once, on PostgreSQL when CI provides one. PGlite is still the whole product's engine in the e2e run.
 */
const ENGINE_SENSITIVE = [
  'src/db/transactor.test.ts',
  'src/db/compiled-query.test.ts',
  'src/modules/images/crash.test.ts',
  'src/modules/messages/messages.crash.test.ts',
  'src/modules/audit/audit.test.ts',
  'src/modules/auth/auth.test.ts',
  'test/backup.test.ts',
];

const withPostgres = Boolean(process.env.TEST_DATABASE_URL);

const serverProject = (name: string, db: 'pglite' | 'postgres') => ({
  test: {
    name,
    root: './server',
    // Without PostgreSQL (a developer's machine), PGlite runs every suite.
    include:
      db === 'pglite' && withPostgres
        ? [...ENGINE_INDEPENDENT, ...ENGINE_SENSITIVE]
        : ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: db === 'postgres' ? ENGINE_INDEPENDENT : [],
    environment: 'node',
    // A worker runs its files one after another in one module graph instead of importing the whole
    // server again for each: every file builds its own app, database and data directory, and no
    // server suite mocks a module (docs/architecture.md › Tests and CI). 620 → 480 s for the unit stage.
    isolate: false,
    env: { MEDSHARE_TEST_DB: db },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

/** Server suites run on PGlite alone, or split between PGlite and PostgreSQL when TEST_DATABASE_URL is set (CI). */
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
      ...(withPostgres ? [serverProject('server-postgres', 'postgres')] : []),
      './web/vitest.config.ts',
    ],
  },
});

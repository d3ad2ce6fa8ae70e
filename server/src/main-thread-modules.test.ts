import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../test/spawned-server.ts';

/**
 * Packages the server's main thread must not load as it starts: dcmjs and its codecs belong to the DICOM
 * workers (QIDO-RS loads dcmjs's dictionary on the first query that names a keyword; the DIMSE receiver,
 * when DIMSE_PORT turns it on, loads dcmjs-dimse and dcmjs with it), PGlite to a server without
 * DATABASE_URL. Each costs the main thread memory for as long as it runs (docs/decisions.md ›
 * Memory of a server under load and at rest).
 */
const WORKER_OR_EMBEDDED_ONLY = /\/node_modules\/(dcmjs|dcmjs-codecs|dcmjs-imaging|@electric-sql\/pglite)\//;

/** The node_modules files that `modules` load (their static imports, transitively), resolved in a child Node. */
function packagesLoadedBy(modules: string[]): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({
      resolve(specifier, context, next) {
        const found = next(specifier, context);
        if (found.url.includes('/node_modules/')) seen.add(found.url);
        return found;
      },
    });
    for (const m of ${JSON.stringify(modules.map((m) => pathToFileURL(join(ROOT, m)).href))}) await import(m);
    console.log(JSON.stringify([...seen]));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    cwd: ROOT,
    timeout: 30_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as string[];
}

describe("the main thread's modules", () => {
  it('leave out what only the DICOM workers and embedded PGlite use', () => {
    const loaded = packagesLoadedBy(['server/src/app.ts', 'server/src/db/db.ts']);
    // The hook sees the server's packages at all: a check that cannot pass by seeing nothing.
    expect(loaded.some((url) => url.includes('/node_modules/fastify/'))).toBe(true);
    expect(loaded.filter((url) => WORKER_OR_EMBEDDED_ONLY.test(url))).toEqual([]);
  });

  it('sees such a package when it is loaded (the worker does)', () => {
    const loaded = packagesLoadedBy(['server/src/modules/dicom/dicom-json.ts']);
    expect(loaded.some((url) => WORKER_OR_EMBEDDED_ONLY.test(url))).toBe(true);
  });
});

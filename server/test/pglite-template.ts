import { PGlite } from '@electric-sql/pglite';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/db.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

/**
 * PGlite data directories for tests, copied from one migrated template. A new PGlite directory runs
 * initdb inside WebAssembly (2–3 s of CPU on the 2-core CI machine), and CI opens dozens; a copy
 * opens in ~0.3 s (docs/architecture.md › Tests and CI). The template sits in the temp directory
 * under a name hashed from the migrations and the PGlite version, so a changed migration or an
 * upgraded PGlite builds a new one; vitest workers that race to build it keep the first.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MIGRATIONS = join(ROOT, 'server/src/db/migrations');
const PGLITE_PACKAGE = join(ROOT, 'node_modules/@electric-sql/pglite/package.json');
const PREFIX = 'medshare-pglite-template-';

function templateName(): string {
  const hash = createHash('sha256').update(readFileSync(PGLITE_PACKAGE));
  for (const name of readdirSync(MIGRATIONS).sort()) hash.update(name).update(readFileSync(join(MIGRATIONS, name)));
  return PREFIX + hash.digest('hex').slice(0, 16);
}

/** Templates of other migration sets, unused for a day: left by earlier checkouts. */
function removeStaleTemplates(keep: string): void {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX) || name === keep || name.includes('.building-')) continue;
    const path = join(tmpdir(), name);
    if (statSync(path).mtimeMs < dayAgo) rmSync(path, { recursive: true, force: true });
  }
}

let template: Promise<string> | null = null;

function pgliteTemplate(): Promise<string> {
  template ??= (async () => {
    const name = templateName();
    const dir = join(tmpdir(), name);
    // Renamed into place only once complete: if it exists, it is whole.
    if (existsSync(dir)) return dir;
    removeStaleTemplates(name);
    const building = mkdtempSync(`${dir}.building-`);
    const handle = await openDatabase({ kind: 'pglite', dir: building });
    await migrateToLatest(handle.db);
    await handle.close();
    try {
      renameSync(building, dir);
    } catch {
      // Another worker put its template in place first; both are the same migrations.
      rmSync(building, { recursive: true, force: true });
    }
    return dir;
  })();
  return template;
}

/**
 * Makes `dir` (absent or empty) a migrated PGlite data directory: the template's copy with a realtime
 * channel of its own, as a fresh database would have (instances share a channel only when they share
 * a database).
 */
export async function freshPgliteDir(dir: string): Promise<void> {
  cpSync(await pgliteTemplate(), dir, { recursive: true });
  const db = await PGlite.create(dir);
  try {
    await db.query(`UPDATE realtime_channel SET name = 'medshare:' || gen_random_uuid()::text`);
  } finally {
    await db.close();
  }
}

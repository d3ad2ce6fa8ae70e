/**
 * `npm run audit:verify`: walks the audit chain and names the first broken row.
 * Reads the same environment as the server: DATABASE_URL, else the PGlite database under DATA_DIR.
 * PGlite's data directory can be opened by one process at a time: stop the server first (or point
 * DATABASE_URL at PostgreSQL, where this runs beside live servers).
 * Exit codes: 0 intact, 1 broken, 2 could not check.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/db.ts';
import { loggedMessage } from '../errors.ts';
import { createAuditRepository } from '../modules/audit/audit.repository.ts';
import { createAuditService } from '../modules/audit/audit.service.ts';

export async function auditVerify(env: NodeJS.ProcessEnv): Promise<{ code: number; line: string }> {
  // Checked before loadConfig, which would create an empty DATA_DIR (and keys) at a mistyped path.
  if (!env.DATABASE_URL) {
    const dir = join(resolve(env.DATA_DIR ?? './data'), 'db');
    if (!existsSync(dir)) return { code: 2, line: `ERROR: no database at ${dir} (set DATA_DIR or DATABASE_URL)` };
  }
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const database = await openDatabase(config.database);
  try {
    const exists = await sql<{ t: string | null }>`select to_regclass('audit_logs')::text as t`.execute(database.db);
    if (!exists.rows[0]?.t) return { code: 2, line: 'ERROR: this database has no audit_logs table (never migrated?)' };
    // Only the chain walk is needed: no migrations or seed, so verifying never writes.
    const audit = createAuditService({
      repo: createAuditRepository(database.db),
      log: pino({ level: 'silent' }),
      timeZone: async () => 'UTC',
    });
    const result = await audit.verifyChain();
    if (result.ok) return { code: 0, line: `OK: ${result.checked} rows verified` };
    return { code: 1, line: `BROKEN at row ${result.brokenAt!.id}: ${result.brokenAt!.problem}` };
  } finally {
    await database.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  try {
    const { code, line } = await auditVerify(process.env);
    (code === 2 ? console.error : console.log)(line);
    process.exitCode = code;
  } catch (err) {
    // The message only: a stack or connection string could carry credentials.
    console.error(`ERROR: ${loggedMessage(err).replace(/\/\/[^@/\s]*@/g, '//***@')}`);
    process.exitCode = 2;
  }
}

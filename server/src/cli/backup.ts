/**
 * `npm run backup [-- --out DIR]`: a consistent backup of the database (logical dump, PGlite or
 * PostgreSQL) and the encrypted blobs (fs or s3) into a new directory. Reads the same environment
 * as the server. PGlite's data directory is opened by one process at a time: stop the server first
 * (with DATABASE_URL the backup runs beside live servers). The master key is never written to the
 * backup: table dumps are encrypted under data keys it wraps, and the manifest carries an HMAC under
 * a key derived from it. Exit codes: 0 written, 1 failed (e.g. ENOSPC; no partial directory is
 * left), 2 refused (bad arguments, nothing to back up).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/db.ts';
import { loggedMessage } from '../errors.ts';
import { BackupError, createBackup } from '../modules/backup/backup.ts';
import { createStorage } from '../storage/index.ts';

export const KEY_GUIDANCE =
  'Keep MASTER_KEY (and JWT_SECRET) apart from the backups, e.g. in a password manager or secret store: the backup holds no key, and a restore needs the same MASTER_KEY.';

function stamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

export async function runBackup(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; lines: string[] }> {
  const at = args.indexOf('--out');
  if (at >= 0 && !args[at + 1]) return { code: 2, lines: ['ERROR: --out takes a directory'] };
  const unknown = args.filter((a, i) => a !== '--out' && args[i - 1] !== '--out');
  if (unknown.length) return { code: 2, lines: [`ERROR: unknown argument ${unknown[0]} (usage: backup [--out DIR])`] };
  // Checked before loadConfig, which would create an empty DATA_DIR (and keys) at a mistyped path.
  const dataDir = resolve(env.DATA_DIR ?? './data');
  if (!env.DATABASE_URL && !existsSync(join(dataDir, 'db')))
    return { code: 2, lines: [`ERROR: no database at ${join(dataDir, 'db')} (set DATA_DIR or DATABASE_URL)`] };
  const out = resolve(at >= 0 ? args[at + 1]! : join('backups', `medshare-${stamp(new Date())}`));
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
  const database = await openDatabase(config.database);
  const storage = createStorage(config);
  try {
    const r = await createBackup({ db: database.db, kind: database.kind, storage, masterKey: config.masterKey }, out);
    const rows = r.manifest.tables.reduce((n, t) => n + t.rows, 0);
    const lines = [
      `Backup written to ${r.dir}: ${rows} rows in ${r.manifest.tables.length} tables, ${r.manifest.blobs.length} blobs, ${(r.bytes / 1024 / 1024).toFixed(1)} MiB, ${(r.ms / 1000).toFixed(1)} s (schema ${r.manifest.migration}, master key ${r.manifest.masterKeyId}).`,
      KEY_GUIDANCE,
    ];
    if (r.manifest.missingBlobs.length)
      lines.push(
        `WARNING: ${r.manifest.missingBlobs.length} live images had no blob to copy (listed in manifest.json), e.g. ${r.manifest.missingBlobs[0]}`,
      );
    return { code: 0, lines };
  } catch (err) {
    if (err instanceof BackupError) return { code: 2, lines: [`ERROR: ${err.message}`] };
    throw err;
  } finally {
    storage.close();
    await database.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  try {
    const { code, lines } = await runBackup(process.env, process.argv.slice(2));
    for (const line of lines) (code === 0 ? console.log : console.error)(line);
    process.exitCode = code;
  } catch (err) {
    // The message only: a stack or connection string could carry credentials.
    console.error(`ERROR: backup failed: ${loggedMessage(err).replace(/\/\/[^@/\s]*@/g, '//***@')}`);
    process.exitCode = 1;
  }
}

/**
 * `npm run restore -- DIR [--force]`: loads a backup made by `npm run backup` into the database
 * and blob store that the environment names (DATA_DIR / DATABASE_URL, STORAGE_DRIVER). The target
 * must be empty unless --force, which first deletes what is there. MASTER_KEY must be the key the
 * backup was made with (or DATA_DIR/master.key must hold it). Stop the servers first.
 * Exit codes: 0 restored, 1 failed, 2 refused.
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/db.ts';
import { loggedMessage } from '../errors.ts';
import { BackupError, checkBackup, restoreBackup, targetProblems, wipeBlobs } from '../modules/backup/backup.ts';
import { dropEverything } from '../modules/backup/db-dump.ts';
import { createStorage } from '../storage/index.ts';

const USAGE = 'usage: restore BACKUP_DIR [--force]';

export async function runRestore(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; lines: string[] }> {
  const force = args.includes('--force');
  const rest = args.filter((a) => a !== '--force');
  if (rest.length !== 1 || rest[0]!.startsWith('--')) return { code: 2, lines: [`ERROR: ${USAGE}`] };
  const from = resolve(rest[0]!);
  const dataDir = resolve(env.DATA_DIR ?? './data');
  // loadConfig would otherwise generate a fresh random master key that opens nothing in the backup.
  if (!env.MASTER_KEY && !existsSync(join(dataDir, 'master.key')))
    return {
      code: 2,
      lines: [
        'ERROR: set MASTER_KEY to the master key the backup was made with (or put it into DATA_DIR/master.key); a restore cannot work with a new key.',
      ],
    };
  try {
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const manifest = await checkBackup(from, config.masterKey);
    const lines: string[] = [];
    const pgliteDir = config.database.kind === 'pglite' ? config.database.dir : null;
    if (pgliteDir && existsSync(pgliteDir) && (await readdir(pgliteDir)).length) {
      if (!force)
        return {
          code: 2,
          lines: [`ERROR: ${pgliteDir} is not empty; restore into an empty DATA_DIR, or add --force to replace it`],
        };
      await rm(pgliteDir, { recursive: true, force: true });
      lines.push(`--force: removed the database at ${pgliteDir}`);
    }
    const database = await openDatabase(config.database);
    const storage = createStorage(config);
    try {
      const problems = await targetProblems({ db: database.db, storage });
      if (problems.length && !force)
        return {
          code: 2,
          lines: [`ERROR: the target is not empty: ${problems.join('; ')}. Add --force to replace it.`],
        };
      if (problems.length) {
        await dropEverything(database.db);
        const n = await wipeBlobs(storage);
        lines.push(`--force: dropped the existing tables and ${n} blobs`);
      }
      const r = await restoreBackup(from, { db: database.db, storage, masterKey: config.masterKey }, manifest);
      lines.push(
        `Restored ${r.rows} rows and ${r.blobs} blobs from ${from} in ${(r.ms / 1000).toFixed(1)} s; every blob reads back with its SHA-256. Check the audit chain with npm run audit:verify.`,
      );
      return { code: 0, lines };
    } finally {
      storage.close();
      await database.close();
    }
  } catch (err) {
    if (err instanceof BackupError) return { code: 2, lines: [`ERROR: ${err.message}`] };
    throw err;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  try {
    const { code, lines } = await runRestore(process.env, process.argv.slice(2));
    for (const line of lines) (code === 0 ? console.log : console.error)(line);
    process.exitCode = code;
  } catch (err) {
    console.error(`ERROR: restore failed: ${loggedMessage(err).replace(/\/\/[^@/\s]*@/g, '//***@')}`);
    process.exitCode = 1;
  }
}

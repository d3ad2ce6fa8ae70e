import { ConfigError, loadConfig } from '../config.ts';
import { openDatabase } from '../db/db.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { loggedMessage } from '../errors.ts';
import { createImagesRepository } from '../modules/images/images.repository.ts';
import { sweepOrphanBlobs } from '../modules/images/sweeper.ts';
import { createStorage } from '../storage/index.ts';

/**
 * npm run storage:sweep [-- --grace-minutes N] — removes blobs that no image row points at and
 * that are older than the grace period (default: the server's, 60 minutes). A grace of 0 is safe
 * only while no upload is in flight (e.g. with the servers stopped).
 */
async function main() {
  const config = loadConfig();
  const flag = process.argv.indexOf('--grace-minutes');
  const graceMinutes = flag >= 0 ? Number(process.argv[flag + 1]) : config.storage.sweepGraceMinutes;
  if (!Number.isFinite(graceMinutes) || graceMinutes < 0) {
    console.error('--grace-minutes takes a number of minutes (0 or more)');
    process.exit(2);
  }
  const database = await openDatabase(config.database);
  const storage = createStorage(config);
  try {
    await migrateToLatest(database.db);
    const result = await sweepOrphanBlobs({
      storage,
      repo: createImagesRepository(database.db),
      graceMs: graceMinutes * 60_000,
    });
    console.log(JSON.stringify(result));
  } finally {
    storage.close();
    await database.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `storage:sweep failed: ${loggedMessage(err)}`);
  process.exit(1);
});

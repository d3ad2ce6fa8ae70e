import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';
import { masterKeyId } from '../crypto/envelope.ts';
import { openDatabase } from '../db/db.ts';
import { loggedMessage } from '../errors.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { rotateMasterKey } from './rotate-master-key.ts';

/**
 * npm run keys:rewrap — re-wraps every data key under NEW_MASTER_KEY (32 bytes, base64) without
 * touching a blob. Stop the servers first (or accept that reads fail until they restart with the
 * new key). With MASTER_KEY unset, DATA_DIR/master.key is replaced by the new key at the end.
 */
async function main() {
  const config = loadConfig();
  const raw = process.env.NEW_MASTER_KEY;
  const newKey = raw ? Buffer.from(raw, 'base64') : null;
  if (!newKey || newKey.length !== 32) {
    console.error(
      `NEW_MASTER_KEY must be 32 bytes, base64-encoded. A fresh one: ${randomBytes(32).toString('base64')}`,
    );
    process.exit(2);
  }
  const database = await openDatabase(config.database);
  try {
    await migrateToLatest(database.db);
    const { data: result, fields } = await rotateMasterKey(database.db, config.masterKey, newKey);
    console.log(
      `Re-wrapped ${result.rewrapped} data keys from master key ${masterKeyId(config.masterKey)} to ${masterKeyId(newKey)} (${result.alreadyNew} were already under the new key).`,
    );
    console.log(
      `Re-wrapped ${fields.rewrapped} field keys (messages, analyses, DICOM Patient ID and UID map); ${fields.alreadyNew} were already under the new key.`,
    );
    if (fields.unknown.length) {
      console.error(`${fields.unknown.length} field keys are wrapped by another master key and were left as they are.`);
      process.exitCode = 1;
    }
    if (result.unknownKeyIds.length) {
      console.error(
        `${result.unknownKeyIds.length} images are wrapped by another master key and were left as they are, e.g. ${result.unknownKeyIds.slice(0, 5).join(', ')}`,
      );
      process.exitCode = 1;
    }
  } finally {
    await database.close();
  }
  if (process.env.MASTER_KEY) {
    console.log('Now set MASTER_KEY to the new key on every instance and restart them.');
  } else {
    const path = join(config.dataDir, 'master.key');
    writeFileSync(`${path}.new`, `${newKey.toString('base64')}\n`, { mode: 0o600 });
    renameSync(`${path}.new`, path);
    console.log(`${path} now holds the new master key; restart the server.`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : `keys:rewrap failed: ${loggedMessage(err)}`);
  process.exit(1);
});

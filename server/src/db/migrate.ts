import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import type { Db } from './db.ts';
import * as foundation from './migrations/0001-foundation.ts';
import * as imagesSharing from './migrations/0002-images-sharing.ts';
import * as messages from './migrations/0003-messages.ts';
import * as people from './migrations/0004-people.ts';
import * as dicom from './migrations/0005-dicom.ts';
import * as analysis from './migrations/0006-analysis.ts';

/** Listed here rather than read from disk so the same history runs under any loader. */
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-images-sharing': imagesSharing,
  '0003-messages': messages,
  '0004-people': people,
  '0005-dicom': dicom,
  '0006-analysis': analysis,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`, { cause: error });
  }
}

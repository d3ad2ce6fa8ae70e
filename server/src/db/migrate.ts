import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import type { Db } from './db.ts';
import * as foundation from './migrations/0001-foundation.ts';
import * as imagesSharing from './migrations/0002-images-sharing.ts';
import * as messages from './migrations/0003-messages.ts';
import * as people from './migrations/0004-people.ts';
import * as dicom from './migrations/0005-dicom.ts';
import * as analysis from './migrations/0006-analysis.ts';
import * as usersListCovering from './migrations/0007-users-list-covering.ts';
import * as dicomMetadata from './migrations/0008-dicom-metadata.ts';
import * as authThrottle from './migrations/0009-auth-throttle.ts';
import * as auditFailures from './migrations/0010-audit-failures.ts';
import * as shareGroups from './migrations/0011-share-groups.ts';
import * as studyShareCopies from './migrations/0012-study-share-copies.ts';
import * as externalShares from './migrations/0013-external-shares.ts';
import * as duplicateCheckIndex from './migrations/0014-duplicate-check-index.ts';
import * as revokeLinksOfDeletedAccounts from './migrations/0015-revoke-links-of-deleted-accounts.ts';
import * as deleteCopiesOfDeletedImages from './migrations/0016-delete-copies-of-deleted-images.ts';
import * as codeIssuedTo from './migrations/0017-code-issued-to.ts';
import * as codeAwaitingMail from './migrations/0018-code-awaiting-mail.ts';
import { errorCode, loggedMessage } from '../errors.ts';

/** Listed here rather than read from disk so the same history runs under any loader. */
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-images-sharing': imagesSharing,
  '0003-messages': messages,
  '0004-people': people,
  '0005-dicom': dicom,
  '0006-analysis': analysis,
  '0007-users-list-covering': usersListCovering,
  '0008-dicom-metadata': dicomMetadata,
  '0009-auth-throttle': authThrottle,
  '0010-audit-failures': auditFailures,
  '0011-share-groups': shareGroups,
  '0012-study-share-copies': studyShareCopies,
  '0013-external-shares': externalShares,
  '0014-duplicate-check-index': duplicateCheckIndex,
  '0015-revoke-links-of-deleted-accounts': revokeLinksOfDeletedAccounts,
  '0016-delete-copies-of-deleted-images': deleteCopiesOfDeletedImages,
  '0017-code-issued-to': codeIssuedTo,
  '0018-code-awaiting-mail': codeAwaitingMail,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Names of every known migration, oldest first (the last one is the latest schema version). */
export const migrationNames: readonly string[] = Object.keys(migrations).sort();

export async function migrateToLatest(db: Db): Promise<void> {
  await migrateTo(db, null);
}

/** Migrates up to and including `name` (null: the latest); a restore loads rows at the backup's version. */
export async function migrateTo(db: Db, name: string | null): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await (name === null ? migrator.migrateToLatest() : migrator.migrateTo(name));
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    // The database's own error stays out: it may quote a stored value (errors.ts › loggedMessage).
    throw new Error(
      `Migration ${failed?.migrationName ?? ''} failed: ${loggedMessage(error)}${errorCode(error) ? ` (SQLSTATE ${errorCode(error)})` : ''}`,
    );
  }
}

import { type Kysely, sql } from 'kysely';

/*
 * Deleting an account revokes its external links in the deleting transaction since the users
 * module's deletion hook did (external-shares.service.ts › onUserDeleted). Links of accounts deleted
 * before that open nothing (every holder request checks that the sharer stands), but they were still
 * listed as active, to their sharer's record and to an administrator's list of every link. Those
 * still running when the account was deleted are revoked here as of the deletion (links that had
 * expired by then stay expired). A migration writes no audit row: the deletions themselves were
 * audited, and these revocations follow from them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE external_shares AS s SET revoked_at = u.deleted_at
    FROM users AS u
    WHERE u.id = s.created_by AND u.deleted_at IS NOT NULL AND s.revoked_at IS NULL
      AND s.expires_at > u.deleted_at`.execute(db);
}

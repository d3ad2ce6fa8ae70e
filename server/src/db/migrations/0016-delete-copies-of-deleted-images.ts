import { type Kysely, sql } from 'kysely';

/*
 * Deleting an image deletes its de-identified copies in the same transaction since
 * images.repository.ts › markDeleted does: a copy is made from its source, and its shares ended with
 * the source's. Copies of images deleted before that stayed live, shared and readable by their
 * recipients. Here they are deleted as of their source's deletion, their running shares revoked and
 * their parsed metadata dropped; the sweeper removes their blobs (modules/images/sweeper.ts). A migration
 * writes no audit row: the deletions of the sources were audited, and these follow from them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE images AS c SET deleted_at = src.deleted_at
    FROM images AS src
    WHERE c.source_image_id = src.id AND src.deleted_at IS NOT NULL AND c.deleted_at IS NULL`.execute(db);
  await sql`
    UPDATE shares AS s SET revoked_at = c.deleted_at
    FROM images AS c
    WHERE s.image_id = c.id AND c.source_image_id IS NOT NULL AND c.deleted_at IS NOT NULL
      AND s.revoked_at IS NULL`.execute(db);
  await sql`
    DELETE FROM dicom_metadata AS m USING images AS c
    WHERE m.image_id = c.id AND c.source_image_id IS NOT NULL AND c.deleted_at IS NOT NULL`.execute(db);
}

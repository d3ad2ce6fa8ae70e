import { type Kysely, sql } from 'kysely';

/*
 * The study share a de-identified copy was made for (`docs/architecture.md` › Sharing). Such a copy
 * exists only for that share: its UIDs are mapped under the share's id, so it is never reused by
 * another share (a single-image de-identified share reuses only copies made under the uploader's
 * scope, where this is null), it is not listed as its uploader's own image or study, and it goes
 * with the share's row when a share whose mail never left is withdrawn (ON DELETE CASCADE).
 */
const statements = [
  `ALTER TABLE images ADD COLUMN copy_for_group uuid REFERENCES share_groups(id) ON DELETE CASCADE`,
  `CREATE INDEX images_copy_for_group_idx ON images (copy_for_group) WHERE copy_for_group IS NOT NULL`,
  // Copies made before: each is an image of exactly one study share (its rows went in with it).
  `UPDATE images i SET copy_for_group = s.group_id
    FROM shares s WHERE s.image_id = i.id AND s.group_id IS NOT NULL AND i.deidentified`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

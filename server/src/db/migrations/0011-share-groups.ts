import { type Kysely, sql } from 'kysely';

/*
 * A whole DICOM study shared under one sharing id and one code (`docs/architecture.md` › Sharing).
 * The group row holds what a code needs (hash, tries, lock, verification) and the share's life
 * (expiry, revocation); each instance gets an ordinary `shares` row pointing at the group, so that
 * who may see an image stays one rule (images/access-policy.ts) and lists, DICOMweb and content
 * reads need nothing new. Verify, lock and revoke write the group and its rows in one transaction.
 */
const statements = [
  `CREATE TABLE share_groups (
    id uuid PRIMARY KEY,
    study_uid text NOT NULL,
    created_by uuid NOT NULL REFERENCES users(id),
    created_for uuid NOT NULL REFERENCES users(id),
    code_hash text NOT NULL,
    expires_at timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    locked_at timestamptz,
    verified_at timestamptz,
    revoked_at timestamptz,
    is_patient_share boolean NOT NULL DEFAULT false,
    deidentified boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (created_by <> created_for)
  )`,
  // The shares of a study, for its sharer's list.
  `CREATE INDEX share_groups_study_idx ON share_groups (study_uid, created_at DESC)`,
  // One open patient share per uploader, patient and study: the instances of a study uploaded for
  // a patient (several at a time by a study import) join one share, unlocked by one mailed code.
  `CREATE UNIQUE INDEX share_groups_patient_key ON share_groups (created_by, created_for, study_uid)
    WHERE is_patient_share AND revoked_at IS NULL AND locked_at IS NULL`,
  `ALTER TABLE shares ADD COLUMN group_id uuid REFERENCES share_groups(id) ON DELETE CASCADE`,
  `CREATE INDEX shares_group_idx ON shares (group_id) WHERE group_id IS NOT NULL`,
  // A provider's studies: their live DICOM uploads by study, without walking their other uploads.
  `CREATE INDEX images_uploader_study_idx ON images (uploader_id, dicom_study_uid)
    WHERE deleted_at IS NULL AND dicom_study_uid IS NOT NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

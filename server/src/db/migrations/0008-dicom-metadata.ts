import { type Kysely, sql } from 'kysely';

/*
 * Parsed DICOM metadata (the DICOM JSON model and the patient attributes), made once at upload so
 * that metadata reads neither read nor reparse the file. PHI: stored only sealed (AES-256-GCM under
 * a key derived from the image's own data key, storage/encrypted-store.ts sealValue). A table of its
 * own, so that image lists never fetch it. Removed with the image's soft delete.
 */
const statements = [
  `CREATE TABLE dicom_metadata (
    image_id uuid PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
    sealed bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE dicom_metadata`.execute(db);
}

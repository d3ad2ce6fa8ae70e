import { type Kysely, sql } from 'kysely';

// Each statement runs on its own: PGlite's extended protocol takes one statement per query.
const statements = [
  `CREATE TABLE images (
    id uuid PRIMARY KEY,
    uploader_id uuid NOT NULL REFERENCES users(id),
    patient_id uuid REFERENCES users(id),
    caption text NOT NULL,
    content_type text NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png', 'application/pdf', 'application/dicom')),
    original_name text NOT NULL,
    size_bytes bigint NOT NULL CHECK (size_bytes > 0),
    sha256 text NOT NULL,
    storage_key text NOT NULL UNIQUE,
    wrapped_key text NOT NULL,
    key_id text NOT NULL,
    enc_format smallint NOT NULL,
    thumbnail_status text NOT NULL CHECK (thumbnail_status IN ('none', 'pending', 'ready', 'failed')),
    thumb_storage_key text UNIQUE,
    thumb_wrapped_key text,
    thumb_key_id text,
    thumb_content_type text,
    thumb_size_bytes bigint,
    thumb_sha256 text,
    created_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz
  )`,
  // Lists: "uploaded by me" and "all" in newest-first order, live rows only.
  `CREATE INDEX images_uploader_live_idx ON images (uploader_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
  `CREATE INDEX images_live_created_idx ON images (created_at DESC, id DESC) WHERE deleted_at IS NULL`,
  `CREATE INDEX images_patient_idx ON images (patient_id) WHERE patient_id IS NOT NULL`,
  `CREATE INDEX images_key_id_idx ON images (key_id)`,
  `CREATE INDEX images_thumb_pending_idx ON images (created_at) WHERE thumbnail_status = 'pending' AND deleted_at IS NULL`,
  `CREATE TABLE shares (
    id uuid PRIMARY KEY,
    image_id uuid NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    created_by uuid NOT NULL REFERENCES users(id),
    created_for uuid NOT NULL REFERENCES users(id),
    code_hash text NOT NULL,
    expires_at timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    locked_at timestamptz,
    verified_at timestamptz,
    revoked_at timestamptz,
    is_patient_share boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (created_by <> created_for)
  )`,
  // One share per image and recipient: a new share replaces a dead one (the audit trail keeps history).
  `CREATE UNIQUE INDEX shares_image_recipient_key ON shares (image_id, created_for)`,
  `CREATE INDEX shares_recipient_idx ON shares (created_for, created_at DESC, image_id DESC)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

import { type Kysely, sql } from 'kysely';

// Each statement runs on its own: PGlite's extended protocol takes one statement per query.
const statements = [
  // One row per analysis run. The result (clinical text derived from the image) is sealed like
  // message text: AES-256-GCM under a field key of purpose 'analysis', bound to the row by AAD.
  // Provider and model stay in plain columns: they are configuration, not patient data.
  `CREATE TABLE analyses (
    id uuid PRIMARY KEY,
    image_id uuid NOT NULL REFERENCES images(id) ON DELETE CASCADE,
    requested_by uuid REFERENCES users(id) ON DELETE SET NULL,
    provider text NOT NULL CHECK (provider IN ('local', 'openai')),
    model text NOT NULL,
    result_key_id text NOT NULL REFERENCES field_keys(id),
    result_nonce bytea NOT NULL,
    result_ciphertext bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`,
  `CREATE INDEX analyses_image_recent_idx ON analyses (image_id, created_at DESC, id DESC)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

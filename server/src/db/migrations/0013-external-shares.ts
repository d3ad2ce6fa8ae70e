import { type Kysely, sql } from 'kysely';

/*
 * Shares with someone who has no account (`docs/architecture.md` › Sharing with someone without an
 * account): a link whose token is stored only as its SHA-256, a 6-digit code stored as an argon2id
 * hash, five tries, an expiry, and the images it opens (one, or a study's; de-identified copies when
 * asked). `generation` changes on re-issue, so the old link and every credential it gave stop at once.
 */
const statements = [
  `CREATE TABLE external_shares (
    id uuid PRIMARY KEY,
    created_by uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    recipient_email text NOT NULL,
    source_image_id uuid REFERENCES images(id),
    study_uid text,
    caption text NOT NULL,
    token_hash text NOT NULL,
    code_hash text NOT NULL,
    generation integer NOT NULL DEFAULT 1,
    attempts integer NOT NULL DEFAULT 0,
    locked_at timestamptz,
    view_only boolean NOT NULL DEFAULT false,
    deidentified boolean NOT NULL DEFAULT false,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz,
    views integer NOT NULL DEFAULT 0,
    last_viewed_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((source_image_id IS NULL) <> (study_uid IS NULL))
  )`,
  `CREATE UNIQUE INDEX external_shares_token_key ON external_shares (token_hash)`,
  `CREATE INDEX external_shares_creator_idx ON external_shares (created_by, created_at DESC)`,
  // The images a share opens, in viewing order (series, then instance, for a study).
  `CREATE TABLE external_share_images (
    share_id uuid NOT NULL REFERENCES external_shares(id) ON DELETE CASCADE,
    image_id uuid NOT NULL REFERENCES images(id),
    position integer NOT NULL,
    PRIMARY KEY (share_id, image_id)
  )`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

import { type Kysely, sql } from 'kysely';

/*
 * Indexes for the users table (dashboard list, search, sort) at 10^5–10^6 users.
 *
 * Search is a case-insensitive *prefix* match on the full name ("ada lo"), the last name, the
 * e-mail and the username. pg_trgm would allow substring search, but PGlite does not load it
 * without bundling the extension, and both databases must behave the same. Every expression is
 * `lower(x) COLLATE "C"` so that one btree serves both `LIKE 'abc%'` and `ORDER BY` whatever
 * the database's default collation (with a non-C collation a plain btree cannot serve LIKE).
 * Partial on `deleted_at IS NULL`: deleted (scrubbed) accounts are never listed.
 */
const statements = [
  `CREATE INDEX users_fullname_c_idx ON users ((lower(firstname || ' ' || lastname) COLLATE "C"), id) WHERE deleted_at IS NULL`,
  `CREATE INDEX users_lastname_c_idx ON users ((lower(lastname) COLLATE "C")) WHERE deleted_at IS NULL`,
  `CREATE INDEX users_email_c_idx ON users ((lower(email) COLLATE "C"), id) WHERE deleted_at IS NULL`,
  `CREATE INDEX users_username_c_idx ON users ((lower(username) COLLATE "C")) WHERE deleted_at IS NULL`,
  `CREATE INDEX users_pending_idx ON users (created_at, id) WHERE approved_at IS NULL AND deleted_at IS NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

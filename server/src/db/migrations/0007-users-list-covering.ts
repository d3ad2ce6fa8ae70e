import { type Kysely, sql } from 'kysely';

/*
 * Covering indexes for the users list's sort orders, so that a deep page skips its offset in an index-only
 * walk and reads the full rows of its few users only (users.repository.ts, `list`). Each index holds the
 * sort key, the id (the tie-breaker), the columns the key is computed from and those of the list's filters
 * (role, active, approved): every list filter and sort is answered from the index without a heap fetch
 * (once the visibility map is set: VACUUM, autovacuum). Partial on `deleted_at IS NULL` like those of 0004,
 * since deleted accounts are never listed; the two full indexes of 0001 they replace served only the list.
 * The name and e-mail indexes keep their names and keys (search uses them too) and gain INCLUDE columns:
 * PostgreSQL scans an expression index index-only only when the expression's columns are in it.
 * Each statement runs on its own (PGlite's extended protocol takes one statement per query).
 */
const statements = [
  `CREATE INDEX users_live_created_idx ON users (created_at DESC, id) INCLUDE (role_id, active, approved_at)
     WHERE deleted_at IS NULL`,
  `CREATE INDEX users_live_role_created_idx ON users (role_id, created_at DESC, id) INCLUDE (active, approved_at)
     WHERE deleted_at IS NULL`,
  `DROP INDEX users_created_idx`,
  `DROP INDEX users_role_created_idx`,
  `DROP INDEX users_fullname_c_idx`,
  `CREATE INDEX users_fullname_c_idx ON users ((lower(firstname || ' ' || lastname) COLLATE "C"), id)
     INCLUDE (firstname, lastname, role_id, active, approved_at) WHERE deleted_at IS NULL`,
  `DROP INDEX users_email_c_idx`,
  `CREATE INDEX users_email_c_idx ON users ((lower(email) COLLATE "C"), id)
     INCLUDE (email, role_id, active, approved_at) WHERE deleted_at IS NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

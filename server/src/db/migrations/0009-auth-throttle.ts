import { type Kysely, sql } from 'kysely';

/*
 * Sign-in throttles (modules/auth/auth-throttle.ts): counters keyed by a hash of what they count
 * (an e-mail and a client address, an address alone, an account's code resends), in the database so
 * that every instance of a deployment shares them. Rows past `expires_at` are pruned by the service.
 * Each statement runs on its own (PGlite's extended protocol takes one statement per query).
 */
const statements = [
  `CREATE TABLE auth_throttles (
    key text PRIMARY KEY,
    hits integer NOT NULL,
    window_ends_at timestamptz NOT NULL,
    locked_until timestamptz,
    expires_at timestamptz NOT NULL
  )`,
  `CREATE INDEX auth_throttles_expires_idx ON auth_throttles (expires_at)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

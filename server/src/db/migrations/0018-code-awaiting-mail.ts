import { type Kysely, sql } from 'kysely';

/*
 * A re-sent or reset code is written before its mail goes out (no transaction waits on SMTP:
 * auth.service.ts › mailIssuedCode) and counts for the limits at once, but is checked only once its
 * mail has left: until then the code the user already has is the one a try is checked against.
 * Codes written before this were all mailed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE one_time_codes ADD COLUMN awaiting_mail boolean NOT NULL DEFAULT false`.execute(db);
}

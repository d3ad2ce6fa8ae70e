import { type Kysely, sql } from 'kysely';

/*
 * A sign-in or registration code's tries, counted per address (auth.service.ts › checkCode): the
 * address block the code was issued to (a hash, as the sign-in counters keep them: never an address)
 * and the tries from every other address, which have a budget of their own. Before, anyone who knew
 * an e-mail could spend the five tries of its owner's code from afar and stop the sign-in. Codes
 * issued before this have no address: every try counts as the owner's, as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE one_time_codes ADD COLUMN issued_to text`.execute(db);
  await sql`ALTER TABLE one_time_codes ADD COLUMN foreign_attempts integer NOT NULL DEFAULT 0`.execute(db);
}

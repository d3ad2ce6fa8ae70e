import { type Kysely, sql } from 'kysely';

/*
 * The audit screen's "Refusals" kind (audit.repository.ts, category=refusals) reads failure rows newest
 * first. They are rare among reads and writes, so without this index a page of them walks the whole
 * chain backwards through the primary key; the partial index holds only the failures.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX audit_logs_failure_idx ON audit_logs (id DESC) WHERE status = 'failure'`.execute(db);
}

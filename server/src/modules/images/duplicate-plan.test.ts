import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/database.ts';
import { type DatabaseHandle, openDatabase } from '../../db/db.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { createImagesRepository } from './images.repository.ts';

const UPLOADER = '00000000-0000-4000-8000-000000000001';
const PATIENT = '00000000-0000-4000-8000-000000000002';

/** Every plan node of an EXPLAIN (FORMAT JSON) answer, depth first. */
function nodesOf(plan: Record<string, unknown>): Array<Record<string, unknown>> {
  const children = (plan.Plans as Array<Record<string, unknown>> | undefined) ?? [];
  return [plan, ...children.flatMap(nodesOf)];
}

/**
 * The upload's duplicate check read every live image of its uploader until PostgreSQL had
 * statistics (migration 0014): with 3 000 images of one uploader and patient and none analysed, its
 * plan must go through the index on (SOP Instance UID, uploader, created_at), never scan the uploader's.
 */
describe('the duplicate check’s plan', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase(database.target);
    // A PostgreSQL test database starts empty; PGlite's is a copy of the migrated template (a no-op here).
    await migrateToLatest(handle.db);
    await handle.db.connection().execute(async (conn) => {
      // Rows only for the planner: their users need not exist.
      await sql`SET session_replication_role = replica`.execute(conn);
      await sql`INSERT INTO images (id, uploader_id, patient_id, caption, content_type, original_name, size_bytes,
          sha256, storage_key, wrapped_key, key_id, enc_format, thumbnail_status, dicom_sop_instance_uid, created_at)
        SELECT gen_random_uuid(), ${UPLOADER}::uuid, ${PATIENT}::uuid, 'c', 'application/dicom', 'f.dcm', 1, 's',
          'key-' || g, 'w', 'k', 1, 'none', '1.2.826.0.1.' || g, now() - g * interval '1 ms'
        FROM generate_series(1, 3000) g`.execute(conn);
      await sql`SET session_replication_role = DEFAULT`.execute(conn);
    });
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  it.each([PATIENT, null])('for patient %s: one index descent by UID, whatever the statistics', async (patient) => {
    const query = createImagesRepository(handle.db).duplicateInstanceQuery(UPLOADER, patient, '1.2.826.0.1.999999');
    const compiled = query.compile();
    const { rows } = await handle.db.executeQuery<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${compiled.sql}`, [...compiled.parameters]),
    );
    const scans = nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan).filter((n) => n['Relation Name'] === 'images');
    expect(scans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([
      ['Index Scan', 'images_dicom_instance_owner_idx'],
    ]);
  });
});

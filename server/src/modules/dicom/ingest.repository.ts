import { type RoleName } from '@medshare/contracts';
import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';

/** The lookups STOW-RS and the DIMSE receiver make before an instance goes into the upload pipeline. */
export function createIngestRepository(db: Db) {
  return {
    /** A live, active patient account by id (the STOW caller's `patientId`). */
    async activePatient(id: string): Promise<{ id: string } | undefined> {
      return db
        .selectFrom('users')
        .innerJoin('roles', 'roles.id', 'users.role_id')
        .select('users.id')
        .where('users.id', '=', id)
        .where('roles.name', '=', 'patient')
        .where('users.active', '=', true)
        .where('users.deleted_at', 'is', null)
        .executeTakeFirst();
    },

    /** The account an allowed AE title stores as (DIMSE_ALLOWED_AES names it by e-mail). */
    async accountByEmail(
      email: string,
    ): Promise<{ id: string; role: RoleName; active: boolean; approved: boolean } | undefined> {
      const row = await db
        .selectFrom('users')
        .innerJoin('roles', 'roles.id', 'users.role_id')
        .select(['users.id', 'users.active', 'users.approved_at', sql<RoleName>`roles.name`.as('role')])
        .where(sql<string>`lower(users.email)`, '=', email.toLowerCase())
        .where('users.deleted_at', 'is', null)
        .executeTakeFirst();
      return row && { id: row.id, role: row.role, active: row.active, approved: row.approved_at !== null };
    },

    /**
     * The patients an uploader already stored live DICOM images for under one patient key (the HMAC
     * of the DICOM Patient ID): the DIMSE receiver's patient rule (`docs/security.md` › DICOM
     * networking: STOW-RS and DIMSE).
     */
    async patientsByKey(uploaderId: string, patientKey: string): Promise<string[]> {
      const rows = await db
        .selectFrom('images')
        .innerJoin('users', 'users.id', 'images.patient_id')
        .select('images.patient_id')
        .distinct()
        .where('images.uploader_id', '=', uploaderId)
        .where('images.dicom_patient_key', '=', patientKey)
        .where('images.deleted_at', 'is', null)
        .where('images.deidentified', '=', false)
        .where('users.active', '=', true)
        .where('users.deleted_at', 'is', null)
        .limit(2)
        .execute();
      return rows.map((r) => r.patient_id!).filter(Boolean);
    },
  };
}
export type IngestRepository = ReturnType<typeof createIngestRepository>;

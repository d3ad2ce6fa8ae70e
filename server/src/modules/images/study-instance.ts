import { type RawBuilder, type SqlBool, sql } from 'kysely';

/**
 * A DICOM instance of a study: a DICOM row with its Study, Series and SOP Instance UIDs. Such rows
 * are listed by study (`GET /api/studies`, the studies module) and left out of the image lists'
 * `kind=files`; one predicate for both, so that no image is listed twice or not at all.
 */
export const inStudySql = (alias: string): RawBuilder<SqlBool> => {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<SqlBool>`(${col('content_type')} = 'application/dicom' AND ${col('dicom_study_uid')} IS NOT NULL
    AND ${col('dicom_series_uid')} IS NOT NULL AND ${col('dicom_sop_instance_uid')} IS NOT NULL)`;
};

/**
 * One copy of an instance: its SOP Instance UID as stored by one uploader for one patient (the
 * duplicate rule's key, `docs/product.md` › Upload). Lists keep the newest row of each copy and
 * count copies: another uploader's (or another patient's) object under the same UID is a copy of
 * its own, never hidden behind the newest one (`docs/security.md` › Authorization matrix).
 */
export const instanceCopyKeySql = (alias: string): RawBuilder<string> => {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<string>`(${col('dicom_sop_instance_uid')} || '|' || ${col('uploader_id')}::text || '|' || coalesce(${col('patient_id')}::text, ''))`;
};

/**
 * True when a study's rows were stored for more than one patient (a study sent to the wrong patient
 * first, then to the right one; no patient counts as one more). Whatever shares a study as one
 * thing (a study share, an external study link) refuses such a study: it would carry the other
 * patient's images along (docs/security.md › Authorization matrix).
 */
export const spansPatients = (rows: ReadonlyArray<{ patient_id: string | null }>): boolean =>
  new Set(rows.map((r) => r.patient_id)).size > 1;

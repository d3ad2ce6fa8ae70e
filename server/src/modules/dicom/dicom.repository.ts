import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { ImageRow, ImagesTable } from '../../db/schema.ts';

/** Who asks, for visibility: the same rule as image content (uploader, image:view_all, verified live share). */
export interface Viewer {
  userId: string;
  all: boolean;
}

export interface InstanceFilter {
  studyUid?: string | undefined;
  seriesUid?: string | undefined;
  sopUid?: string | undefined;
  modality?: string | undefined;
  patientKey?: string | undefined;
}

export function createDicomRepository(db: Db) {
  /** Live DICOM rows whose content the viewer may read, narrowed by the filter. */
  const visible = (viewer: Viewer, f: InstanceFilter) => {
    let q = db
      .selectFrom('images as i')
      .where('i.deleted_at', 'is', null)
      .where('i.content_type', '=', 'application/dicom')
      .where('i.dicom_sop_instance_uid', 'is not', null)
      .where('i.dicom_study_uid', 'is not', null)
      .where('i.dicom_series_uid', 'is not', null);
    if (!viewer.all)
      q = q.where((eb) =>
        eb.or([
          eb('i.uploader_id', '=', viewer.userId),
          eb.exists(
            eb
              .selectFrom('shares as s')
              .select(sql`1`.as('one'))
              .whereRef('s.image_id', '=', 'i.id')
              .where('s.created_for', '=', viewer.userId)
              .where('s.verified_at', 'is not', null)
              .where('s.revoked_at', 'is', null)
              .where((e) => e.or([e('s.expires_at', 'is', null), e('s.expires_at', '>', sql<Date>`now()`)])),
          ),
        ]),
      );
    if (f.studyUid) q = q.where('i.dicom_study_uid', '=', f.studyUid);
    if (f.seriesUid) q = q.where('i.dicom_series_uid', '=', f.seriesUid);
    if (f.sopUid) q = q.where('i.dicom_sop_instance_uid', '=', f.sopUid);
    if (f.modality) q = q.where('i.dicom_modality', '=', f.modality);
    if (f.patientKey) q = q.where('i.dicom_patient_key', '=', f.patientKey);
    return q;
  };

  return {
    async studies(viewer: Viewer, f: InstanceFilter, limit: number, offset: number) {
      return visible(viewer, f)
        .select([
          'i.dicom_study_uid as study_uid',
          sql<string | null>`min(i.dicom_study_date)::text`.as('study_date'),
          sql<string[]>`array_remove(array_agg(DISTINCT i.dicom_modality), NULL)`.as('modalities'),
          sql<number>`count(DISTINCT i.dicom_series_uid)::int`.as('series'),
          sql<number>`count(DISTINCT i.dicom_sop_instance_uid)::int`.as('instances'),
        ])
        .groupBy('i.dicom_study_uid')
        .orderBy(sql`max(i.created_at)`, 'desc')
        .orderBy('i.dicom_study_uid')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    async series(viewer: Viewer, f: InstanceFilter, limit: number, offset: number) {
      return visible(viewer, f)
        .select([
          'i.dicom_study_uid as study_uid',
          'i.dicom_series_uid as series_uid',
          sql<string | null>`min(i.dicom_modality)`.as('modality'),
          sql<string | null>`min(i.dicom_body_part)`.as('body_part'),
          sql<number>`count(DISTINCT i.dicom_sop_instance_uid)::int`.as('instances'),
        ])
        .groupBy(['i.dicom_study_uid', 'i.dicom_series_uid'])
        .orderBy('i.dicom_series_uid')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    /** One row per SOP instance UID (the newest upload of it). */
    async instances(viewer: Viewer, f: InstanceFilter, limit: number, offset: number): Promise<ImageRow[]> {
      const rows = await visible(viewer, f)
        .selectAll('i')
        .distinctOn('i.dicom_sop_instance_uid')
        .orderBy('i.dicom_sop_instance_uid')
        .orderBy('i.created_at', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows as ImageRow[];
    },

    /** The newest visible row of one instance. */
    instance: (viewer: Viewer, f: Required<Pick<InstanceFilter, 'studyUid' | 'seriesUid' | 'sopUid'>>) =>
      visible(viewer, f).selectAll('i').orderBy('i.created_at', 'desc').limit(1).executeTakeFirst() as Promise<
        ImageRow | undefined
      >,

    /** The live de-identified copy of a source image, if one was made. */
    liveCopyOf: (sourceId: string) =>
      db
        .selectFrom('images')
        .selectAll()
        .where('source_image_id', '=', sourceId)
        .where('deidentified', '=', true)
        .where('deleted_at', 'is', null)
        .orderBy('created_at', 'desc')
        .limit(1)
        .executeTakeFirst(),

    insertImage: (row: Insertable<ImagesTable>) => db.insertInto('images').values(row).execute(),
  };
}
export type DicomRepository = ReturnType<typeof createDicomRepository>;

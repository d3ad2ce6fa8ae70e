import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { ImageRow, ImagesTable } from '../../db/schema.ts';
import { listedContentSql } from '../images/access-policy.ts';
import { isLiveImage, lockLiveImages } from '../images/images.repository.ts';
import { instanceCopyKeySql } from '../images/study-instance.ts';
import { chunks } from '../../db/chunks.ts';

/** Image rows bound by one INSERT: ~40 parameters each, well under the 65 535 a statement may bind. */
const COPY_ROWS_PER_STATEMENT = 500;
/** Sealed metadata (a few KB to tens of KB a copy) sent in one INSERT, at most. */
const METADATA_BYTES_PER_STATEMENT = 4 * 1024 * 1024;

/**
 * Who asks, for visibility: the same rule as image content (uploader, image:view_all, verified live
 * share), de-identified copies only to those they were shared with (access-policy.ts listedContentSql).
 */
export interface Viewer {
  userId: string;
  all: boolean;
}

export interface InstanceFilter {
  studyUid?: string | undefined;
  seriesUid?: string | undefined;
  sopUid?: string | undefined;
  modality?: string | undefined;
  /** ModalitiesInStudy: only studies with a visible instance of one of these modalities (every instance of them kept). */
  studyModalities?: string[] | undefined;
  patientKey?: string | undefined;
  /** Study date bounds, inclusive, 'YYYY-MM-DD'. */
  studyDateFrom?: string | undefined;
  studyDateTo?: string | undefined;
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
    q = q.where(listedContentSql('i', viewer));
    if (f.studyUid) q = q.where('i.dicom_study_uid', '=', f.studyUid);
    if (f.seriesUid) q = q.where('i.dicom_series_uid', '=', f.seriesUid);
    if (f.sopUid) q = q.where('i.dicom_sop_instance_uid', '=', f.sopUid);
    if (f.modality) q = q.where('i.dicom_modality', '=', f.modality);
    if (f.studyModalities?.length)
      q = q.where(
        'i.dicom_study_uid',
        'in',
        visible(viewer, {}).where('i.dicom_modality', 'in', f.studyModalities).select('i.dicom_study_uid'),
      );
    if (f.patientKey) q = q.where('i.dicom_patient_key', '=', f.patientKey);
    if (f.studyDateFrom) q = q.where('i.dicom_study_date', '>=', f.studyDateFrom);
    if (f.studyDateTo) q = q.where('i.dicom_study_date', '<=', f.studyDateTo);
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
          // Copies, not UIDs: another uploader's object under the same UID counts on its own (M1).
          sql<number>`count(DISTINCT ${instanceCopyKeySql('i')})::int`.as('instances'),
          // One instance stands for the study: its metadata gives the patient and study attributes.
          sql<string>`(array_agg(i.id ORDER BY i.created_at DESC))[1]`.as('sample_id'),
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
          // Copies, not UIDs: another uploader's object under the same UID counts on its own (M1).
          sql<number>`count(DISTINCT ${instanceCopyKeySql('i')})::int`.as('instances'),
          sql<string>`(array_agg(i.id ORDER BY i.created_at DESC))[1]`.as('sample_id'),
        ])
        .groupBy(['i.dicom_study_uid', 'i.dicom_series_uid'])
        .orderBy('i.dicom_series_uid')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    /** One row per copy of each SOP instance UID (study-instance.ts instanceCopyKeySql: the newest row of it). */
    async instances(viewer: Viewer, f: InstanceFilter, limit: number, offset: number): Promise<ImageRow[]> {
      const rows = await visible(viewer, f)
        .selectAll('i')
        .distinctOn(['i.dicom_sop_instance_uid', 'i.uploader_id', 'i.patient_id'])
        .orderBy('i.dicom_sop_instance_uid')
        .orderBy('i.uploader_id')
        .orderBy('i.patient_id')
        .orderBy('i.created_at', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows as ImageRow[];
    },

    /**
     * One visible row of an instance named by its UIDs: the viewer's own copy if they hold one, else
     * the newest (several uploaders' copies are each listed by QIDO and study or series retrieve).
     */
    instance: (viewer: Viewer, f: Required<Pick<InstanceFilter, 'studyUid' | 'seriesUid' | 'sopUid'>>) =>
      visible(viewer, f)
        .selectAll('i')
        .orderBy(sql`i.uploader_id = ${viewer.userId}`, 'desc')
        .orderBy('i.created_at', 'desc')
        .limit(1)
        .executeTakeFirst() as Promise<ImageRow | undefined>,

    /**
     * The visible instances of a study or series (the newest row of each copy of a SOP instance
     * UID), at most `max` of them: ordered by series, then SOP instance UID.
     */
    async retrievable(viewer: Viewer, f: Pick<InstanceFilter, 'studyUid' | 'seriesUid'>, max: number) {
      const rows = (await visible(viewer, f)
        .selectAll('i')
        .distinctOn(['i.dicom_sop_instance_uid', 'i.uploader_id', 'i.patient_id'])
        .orderBy('i.dicom_sop_instance_uid')
        .orderBy('i.uploader_id')
        .orderBy('i.patient_id')
        .orderBy('i.created_at', 'desc')
        .limit(max)
        .execute()) as ImageRow[];
      return rows.sort(
        (a, b) =>
          (a.dicom_series_uid ?? '').localeCompare(b.dicom_series_uid ?? '') ||
          (a.dicom_sop_instance_uid ?? '').localeCompare(b.dicom_sop_instance_uid ?? ''),
      );
    },

    /** Rows by id (QIDO's sample instances), whatever their visibility: the ids came from a visible query. */
    async byIds(ids: string[]): Promise<ImageRow[]> {
      if (!ids.length) return [];
      return (await db.selectFrom('images').selectAll().where('id', 'in', ids).execute()) as ImageRow[];
    },

    /** Bytes of the sealed parsed metadata of several images, by image id (those stored without it are missing). */
    async metadataSizes(imageIds: string[]): Promise<Map<string, number>> {
      if (!imageIds.length) return new Map();
      const rows = await db
        .selectFrom('dicom_metadata')
        .select(['image_id', sql<number>`octet_length(sealed)`.as('bytes')])
        .where('image_id', 'in', imageIds)
        .execute();
      return new Map(rows.map((r) => [r.image_id, Number(r.bytes)]));
    },

    /** Sealed parsed metadata of several images, by image id (those stored without it are missing). */
    async metadataOfMany(imageIds: string[]): Promise<Map<string, Uint8Array>> {
      if (!imageIds.length) return new Map();
      const rows = await db
        .selectFrom('dicom_metadata')
        .select(['image_id', 'sealed'])
        .where('image_id', 'in', imageIds)
        .execute();
      return new Map(rows.map((r) => [r.image_id, r.sealed]));
    },

    /**
     * The live de-identified copy of a source image made for single-image shares (UIDs mapped under
     * the uploader's scope), if one was made; never a copy made for a study share (its own scope).
     */
    liveCopyOf: (sourceId: string) =>
      db
        .selectFrom('images')
        .selectAll()
        .where('source_image_id', '=', sourceId)
        .where('deidentified', '=', true)
        .where('copy_for_group', 'is', null)
        .where('deleted_at', 'is', null)
        .orderBy('created_at', 'desc')
        .limit(1)
        .executeTakeFirst(),

    insertImage: (row: Insertable<ImagesTable>) => db.insertInto('images').values(row).execute(),

    /**
     * A study share's de-identified copies: their rows, then their sealed metadata, a few statements
     * for a whole study. The share's transaction holds them (on PGlite, the server's one connection):
     * one row at a time, a 5 000-instance study took 10 000 round trips.
     */
    async insertCopies(copies: ReadonlyArray<{ row: Insertable<ImagesTable>; sealed: Uint8Array }>): Promise<void> {
      for (const part of chunks(copies, COPY_ROWS_PER_STATEMENT))
        await db
          .insertInto('images')
          .values(part.map((c) => c.row))
          .execute();
      let part: Array<{ image_id: string; sealed: Uint8Array }> = [];
      let bytes = 0;
      const flush = async () => {
        if (part.length) await db.insertInto('dicom_metadata').values(part).execute();
        part = [];
        bytes = 0;
      };
      for (const { row, sealed } of copies) {
        if (bytes + sealed.length > METADATA_BYTES_PER_STATEMENT) await flush();
        part.push({ image_id: row.id as string, sealed });
        bytes += sealed.length;
      }
      await flush();
    },

    /** The live source images among `ids`, locked (images.repository.ts › `lockLiveImages`); how many. */
    lockLiveImages: (ids: readonly string[]): Promise<number> => lockLiveImages(db, ids),

    /**
     * Locks a live image's row to the end of the transaction: racing makers of its de-identified
     * copy wait here for each other, and a deletion of it waits for them. False when it is gone.
     */
    lockLiveImage: async (id: string): Promise<boolean> => (await lockLiveImages(db, [id])) === 1,

    isLive: (id: string): Promise<boolean> => isLiveImage(db, id),

    /** The sealed parsed metadata of an image, if it was stored. */
    metadataOf: async (imageId: string): Promise<Uint8Array | null> =>
      (await db.selectFrom('dicom_metadata').select('sealed').where('image_id', '=', imageId).executeTakeFirst())
        ?.sealed ?? null,

    /** Replaces a stored copy that was made again (one stored before the per-data-set bound, over it). */
    replaceMetadata: (imageId: string, sealed: Uint8Array) =>
      db.updateTable('dicom_metadata').set({ sealed }).where('image_id', '=', imageId).execute(),

    /** Stores sealed metadata once (a concurrent first read may have stored it already). */
    saveMetadata: (imageId: string, sealed: Uint8Array) =>
      db
        .insertInto('dicom_metadata')
        .values({ image_id: imageId, sealed })
        .onConflict((oc) => oc.column('image_id').doNothing())
        .execute(),
  };
}
export type DicomRepository = ReturnType<typeof createDicomRepository>;

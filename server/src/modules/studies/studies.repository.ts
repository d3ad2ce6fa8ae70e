import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { ShareGroupRow, ShareRow } from '../../db/schema.ts';
import { countUpTo } from '../../http/list-window.ts';
import { listedContentSql } from '../images/access-policy.ts';
import { inStudySql, instanceCopyKeySql } from '../images/study-instance.ts';

/** Who asks: `all` for image:view_all (every study), else their own uploads and shares to them. */
export interface StudyViewer {
  userId: string;
  all: boolean;
}

/**
 * One card of the study list: the viewer's own (or, for an admin, every) upload of a study
 * (`via` null), or the images of a study that reached the viewer through one share (`via` = the
 * study share's id, or the image share's id for an instance shared on its own).
 */
export interface StudyEntry {
  study_uid: string;
  via: string | null;
  sort_at: Date;
}

/** What a card counts over its images. */
export interface StudyAggregate {
  key: string;
  study_uid: string;
  instances: number;
  series: number;
  modalities: string[];
  study_date: string | null;
  newest_id: string;
  /** An image with a thumbnail made, for the card. */
  thumb_id: string | null;
  deidentified: boolean;
  /** Images of the card the viewer uploaded. */
  own: number;
  /** A share row of the card (the image share itself, or one row of the study share). */
  share_id: string | null;
  group_id: string | null;
}

export interface NewestImage {
  id: string;
  caption: string;
  uploader_id: string;
  uploader_firstname: string;
  uploader_lastname: string;
  patient_id: string | null;
  patient_firstname: string | null;
  patient_lastname: string | null;
  wrapped_key: string;
  key_id: string;
}

export interface ShareWithCreator extends ShareRow {
  creator_firstname: string;
  creator_lastname: string;
}
export interface GroupWithCreator extends ShareGroupRow {
  creator_firstname: string;
  creator_lastname: string;
}

/** One instance of the study page (the newest row of each copy of a SOP Instance UID the viewer may see). */
export interface VisibleInstance {
  id: string;
  series_uid: string;
  sop_uid: string;
  modality: string | null;
  frames: number | null;
  thumbnail_status: string;
  wrapped_key: string;
  key_id: string;
}

const uuids = (ids: string[]) => sql.join(ids.map((id) => sql`${id}::uuid`));

/**
 * Studies are not stored: they are the live DICOM rows of `images` grouped by Study Instance UID,
 * reached through the same shares as each image (images/access-policy.ts decides content access).
 */
export function createStudiesRepository(db: Db) {
  /**
   * Every card's rows: (study, via, when) per image, own uploads and shares to the viewer. A
   * de-identified copy is no upload of its own: it reaches only those it was shared with.
   */
  const entryRows = (viewer: StudyViewer, studyUid: string | null) => {
    const study = studyUid === null ? sql`` : sql` AND i.dicom_study_uid = ${studyUid}`;
    if (viewer.all)
      // Every upload as its own card; a de-identified copy only through a share to this viewer.
      return sql`SELECT i.dicom_study_uid AS study_uid, NULL::uuid AS via, i.created_at AS sort_at
        FROM images i WHERE i.deleted_at IS NULL AND NOT i.deidentified AND ${inStudySql('i')}${study}
      UNION ALL
      SELECT i.dicom_study_uid, coalesce(s.group_id, s.id), s.created_at
        FROM shares s JOIN images i ON i.id = s.image_id
        WHERE s.created_for = ${viewer.userId} AND i.deidentified AND i.deleted_at IS NULL AND ${inStudySql('i')}${study}`;
    return sql`SELECT i.dicom_study_uid AS study_uid, NULL::uuid AS via, i.created_at AS sort_at
        FROM images i WHERE i.uploader_id = ${viewer.userId} AND i.deleted_at IS NULL AND NOT i.deidentified
          AND ${inStudySql('i')}${study}
      UNION ALL
      SELECT i.dicom_study_uid, coalesce(s.group_id, s.id), s.created_at
        FROM shares s JOIN images i ON i.id = s.image_id
        WHERE s.created_for = ${viewer.userId} AND i.uploader_id <> ${viewer.userId} AND i.deleted_at IS NULL
          AND ${inStudySql('i')}${study}`;
  };

  // Copies, not UIDs: another uploader's (or patient's) object under the same UID counts on its own.
  const aggregates = sql`count(DISTINCT ${instanceCopyKeySql('i')})::int AS instances,
      count(DISTINCT i.dicom_series_uid)::int AS series,
      array_remove(array_agg(DISTINCT i.dicom_modality), NULL) AS modalities,
      min(i.dicom_study_date)::text AS study_date,
      (array_agg(i.id ORDER BY i.created_at DESC, i.id DESC))[1] AS newest_id,
      (array_agg(i.id ORDER BY i.dicom_series_uid, i.dicom_sop_instance_uid) FILTER (WHERE i.thumbnail_status = 'ready'))[1] AS thumb_id,
      bool_or(i.deidentified) AS deidentified`;

  return {
    /** A page of cards, newest first; counted up to `countCap`. */
    async listEntries(
      viewer: StudyViewer,
      limit: number,
      offset: number,
      countCap: number,
    ): Promise<{ entries: StudyEntry[]; total: number }> {
      const cards = sql`SELECT study_uid, via, max(sort_at) AS sort_at FROM (${entryRows(viewer, null)}) e
        GROUP BY study_uid, via`;
      const [page, total] = await Promise.all([
        sql<StudyEntry>`SELECT * FROM (${cards}) c ORDER BY sort_at DESC, study_uid, via NULLS FIRST
          LIMIT ${limit} OFFSET ${offset}`.execute(db),
        countUpTo(db, cards, countCap),
      ]);
      return { entries: page.rows, total };
    },

    /** The viewer's cards of one study: their own first, then the newest shares, at most `limit`. */
    entriesOfStudy: async (viewer: StudyViewer, studyUid: string, limit: number): Promise<StudyEntry[]> =>
      (
        await sql<StudyEntry>`SELECT study_uid, via, max(sort_at) AS sort_at FROM (${entryRows(viewer, studyUid)}) e
          GROUP BY study_uid, via ORDER BY via IS NULL DESC, max(sort_at) DESC, via LIMIT ${limit}`.execute(db)
      ).rows,

    /** Own cards (via null): every live instance of each study the viewer uploaded (or, for `all`, anyone). */
    async ownAggregates(viewer: StudyViewer, studyUids: string[]): Promise<StudyAggregate[]> {
      if (!studyUids.length) return [];
      const mine = viewer.all ? sql`` : sql` AND i.uploader_id = ${viewer.userId}`;
      const { rows } =
        await sql<StudyAggregate>`SELECT i.dicom_study_uid AS key, i.dicom_study_uid AS study_uid, ${aggregates},
          (count(*) FILTER (WHERE i.uploader_id = ${viewer.userId}))::int AS own, NULL::uuid AS share_id, NULL::uuid AS group_id
        FROM images i
        WHERE i.deleted_at IS NULL AND NOT i.deidentified AND ${inStudySql('i')}
          AND i.dicom_study_uid IN (${sql.join(studyUids)})${mine}
        GROUP BY i.dicom_study_uid`.execute(db);
      return rows;
    },

    /** Shared cards: the images that reached the viewer through each share (`via`). */
    async sharedAggregates(viewerId: string, vias: string[]): Promise<StudyAggregate[]> {
      if (!vias.length) return [];
      const { rows } =
        await sql<StudyAggregate>`SELECT coalesce(s.group_id, s.id)::text AS key, i.dicom_study_uid AS study_uid,
          ${aggregates}, 0 AS own, (array_agg(s.id ORDER BY s.id))[1] AS share_id, (array_agg(s.group_id))[1] AS group_id
        FROM shares s JOIN images i ON i.id = s.image_id
        WHERE s.created_for = ${viewerId} AND coalesce(s.group_id, s.id) IN (${uuids(vias)})
          AND i.uploader_id <> ${viewerId} AND i.deleted_at IS NULL AND ${inStudySql('i')}
        GROUP BY coalesce(s.group_id, s.id), i.dicom_study_uid`.execute(db);
      return rows;
    },

    newestImages: async (ids: string[]): Promise<NewestImage[]> =>
      ids.length
        ? db
            .selectFrom('images as i')
            .innerJoin('users as up', 'up.id', 'i.uploader_id')
            .leftJoin('users as pt', 'pt.id', 'i.patient_id')
            .select([
              'i.id',
              'i.caption',
              'i.uploader_id',
              'up.firstname as uploader_firstname',
              'up.lastname as uploader_lastname',
              'i.patient_id',
              'pt.firstname as patient_firstname',
              'pt.lastname as patient_lastname',
              'i.wrapped_key',
              'i.key_id',
            ])
            .where('i.id', 'in', ids)
            .execute()
        : Promise.resolve([]),

    sharesWithCreator: async (ids: string[]): Promise<ShareWithCreator[]> =>
      ids.length
        ? db
            .selectFrom('shares as s')
            .innerJoin('users as cr', 'cr.id', 's.created_by')
            .selectAll('s')
            .select(['cr.firstname as creator_firstname', 'cr.lastname as creator_lastname'])
            .where('s.id', 'in', ids)
            .execute()
        : Promise.resolve([]),

    groupsWithCreator: async (ids: string[]): Promise<GroupWithCreator[]> =>
      ids.length
        ? db
            .selectFrom('share_groups as g')
            .innerJoin('users as cr', 'cr.id', 'g.created_by')
            .selectAll('g')
            .select(['cr.firstname as creator_firstname', 'cr.lastname as creator_lastname'])
            .where('g.id', 'in', ids)
            .execute()
        : Promise.resolve([]),

    /** Sealed parsed DICOM metadata by image id (rows stored before it was kept have none). */
    async sealedMetadata(ids: string[]): Promise<Map<string, Uint8Array>> {
      if (!ids.length) return new Map();
      const rows = await db
        .selectFrom('dicom_metadata')
        .select(['image_id', 'sealed'])
        .where('image_id', 'in', ids)
        .execute();
      return new Map(rows.map((r) => [r.image_id, r.sealed]));
    },

    /**
     * The study's instances whose content the viewer may see (the rule of the DICOM lists:
     * images/access-policy.ts listedContentSql), the newest row of each copy of a SOP Instance UID
     * (each uploader's, for each patient: none hides another), at most `max`.
     */
    visibleInstances: async (viewer: StudyViewer, studyUid: string, max: number): Promise<VisibleInstance[]> =>
      (
        await sql<VisibleInstance>`SELECT DISTINCT ON (i.dicom_sop_instance_uid, i.uploader_id, i.patient_id) i.id,
            i.dicom_series_uid AS series_uid, i.dicom_sop_instance_uid AS sop_uid, i.dicom_modality AS modality,
            i.dicom_frames AS frames, i.thumbnail_status, i.wrapped_key, i.key_id
          FROM images i
          WHERE i.dicom_study_uid = ${studyUid} AND i.deleted_at IS NULL AND ${inStudySql('i')}
            AND ${listedContentSql('i', viewer)}
          ORDER BY i.dicom_sop_instance_uid, i.uploader_id, i.patient_id, i.created_at DESC, i.id
          LIMIT ${max}`.execute(db)
      ).rows,

    /**
     * The study's live images the actor may share, at most `max`: their uploads (or, for `all`, every
     * one), never a de-identified copy (that belongs to the share it was made for).
     */
    manageableImages: (viewer: StudyViewer, studyUid: string, max: number) =>
      db
        .selectFrom('images as i')
        .select([
          'i.id',
          'i.uploader_id',
          'i.patient_id',
          'i.caption',
          'i.created_at',
          'i.dicom_series_uid',
          'i.dicom_sop_instance_uid',
          'i.dicom_modality',
        ])
        .where('i.dicom_study_uid', '=', studyUid)
        .where('i.deleted_at', 'is', null)
        .where('i.deidentified', '=', false)
        .where(inStudySql('i'))
        .$if(!viewer.all, (q) => q.where('i.uploader_id', '=', viewer.userId))
        .orderBy('i.created_at', 'desc')
        .orderBy('i.id', 'desc')
        .limit(max)
        .execute(),
  };
}
export type StudiesRepository = ReturnType<typeof createStudiesRepository>;

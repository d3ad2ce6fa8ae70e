import { LIST_MAX_WINDOW, type RoleName } from '@medshare/contracts';
import { type Insertable, type SqlBool, sql } from 'kysely';
import { compiledQuery } from '../../db/compiled-query.ts';
import { type Db, PREPARED } from '../../db/db.ts';
import { countUpTo } from '../../http/list-window.ts';
import type { ImageRow, ImagesTable, ShareRow, ThumbnailStatus } from '../../db/schema.ts';
import type { AuditCtes } from '../audit/audit.repository.ts';
import type { ShareCtes } from '../sharing/patient-share.ts';
import { type ShareLife, shareNotEndedSql } from './access-policy.ts';
import { inStudySql } from './study-instance.ts';

export interface UserBrief {
  id: string;
  firstname: string;
  lastname: string;
  role: RoleName;
  active: boolean;
  approved: boolean;
}

export interface ImageWithPeople extends ImageRow {
  uploader_firstname: string;
  uploader_lastname: string;
  patient_firstname: string | null;
  patient_lastname: string | null;
}

export interface ShareWithCreator extends ShareRow {
  creator_firstname: string;
  creator_lastname: string;
}

/** What a read of an image's bytes or thumbnail needs of its row: who uploaded it, its objects and its name. */
export type ContentSource = Pick<
  ImageRow,
  | 'id'
  | 'uploader_id'
  | 'content_type'
  | 'original_name'
  | 'storage_key'
  | 'wrapped_key'
  | 'key_id'
  | 'sha256'
  | 'size_bytes'
  | 'thumbnail_status'
  | 'thumb_storage_key'
  | 'thumb_wrapped_key'
  | 'thumb_key_id'
  | 'thumb_content_type'
  | 'thumb_size_bytes'
  | 'thumb_sha256'
>;

/** An image's stored object as a read of it needs it: who uploaded it, its blob, key and digest, its thumbnail's state. */
const STORED_OBJECT_COLUMNS = [
  'images.id',
  'images.uploader_id',
  'images.content_type',
  'images.storage_key',
  'images.wrapped_key',
  'images.key_id',
  'images.sha256',
  'images.size_bytes',
  'images.thumbnail_status',
] as const;

/** A column's name without its table: `images.id` → `id`. */
type ColumnOf<Selection> = Selection extends `images.${infer Column}` ? Column : never;

/** What making a thumbnail needs of its row: whether it still waits for one, and the object to read. */
export type ThumbnailSource = Pick<ImageRow, ColumnOf<(typeof STORED_OBJECT_COLUMNS)[number]> & keyof ImageRow>;

/** One row of a list page: an own image (share_id null) or an image that reached the viewer through a share. */
export interface ListEntry {
  image_id: string;
  share_id: string | null;
  sort_at: Date;
}

/** The image lists' `kind=files`: not a DICOM instance of a study (those are listed by study). */
const notInStudy = (alias: string) => sql<SqlBool>`NOT ${inStudySql(alias)}`;

/**
 * Locks the live rows among `ids` (in id order, so that two lockers of overlapping sets cannot
 * deadlock) to the end of the transaction; returns how many there were. An image's deletion
 * (`markDeleted`) and the makers of its de-identified copies (dicom.repository.ts) take it, so each
 * waits for the other. `FOR NO KEY UPDATE`: rows that point at an image (a share, a copy) take a
 * key-share lock on it while holding the audit head, which the locker then needs; `FOR UPDATE`
 * would deadlock with them.
 */
export async function lockLiveImages(db: Db, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rows } = await sql`SELECT id FROM images WHERE id IN (${sql.join(ids.map((id) => sql`${id}::uuid`))})
    AND deleted_at IS NULL ORDER BY id FOR NO KEY UPDATE`.execute(db);
  return rows.length;
}

/**
 * Whether the image is live. A blob found missing under a row deleted meanwhile went with its image
 * (a read racing the deletion: 404), not astray (an integrity failure: 500).
 */
export async function isLiveImage(db: Db, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('images')
    .select('id')
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

export function createImagesRepository(db: Db) {
  const imagesWithPeople = () =>
    db
      .selectFrom('images')
      .innerJoin('users as up', 'up.id', 'images.uploader_id')
      .leftJoin('users as pt', 'pt.id', 'images.patient_id')
      .selectAll('images')
      .select([
        'up.firstname as uploader_firstname',
        'up.lastname as uploader_lastname',
        'pt.firstname as patient_firstname',
        'pt.lastname as patient_lastname',
      ]);

  /**
   * Migration 0014's index answers it (the sop UID and uploader, oldest first) in one descent. Only the
   * id: asked for every DICOM instance uploaded and nearly always empty, and PostgreSQL describes a
   * prepared statement's columns on every run whether rows come or not:
   * docs/decisions.md › Narrow rows on the ingest's path.
   */
  const duplicateInstanceQuery = (uploaderId: string, patientId: string | null, sopInstanceUid: string) =>
    db
      .selectFrom('images')
      .select('images.id')
      .where('images.dicom_sop_instance_uid', '=', sopInstanceUid)
      .where('images.uploader_id', '=', uploaderId)
      .where((eb) =>
        patientId === null ? eb('images.patient_id', 'is', null) : eb('images.patient_id', '=', patientId),
      )
      .where('images.deleted_at', 'is', null)
      .where('images.deidentified', '=', false)
      .orderBy('images.created_at')
      .limit(1)
      .modifyEnd(PREPARED);
  // Most routes on one image read it: compiled once.
  const liveById = compiledQuery(db, (id: string) =>
    imagesWithPeople().where('images.id', '=', id).where('images.deleted_at', 'is', null).modifyEnd(PREPARED),
  );
  // Asked once for every DICOM instance uploaded: compiled once, one text for each side of the patient branch.
  const duplicateForNoPatient = compiledQuery(db, (uploaderId: string, sopInstanceUid: string) =>
    duplicateInstanceQuery(uploaderId, null, sopInstanceUid),
  );
  const duplicateForPatient = compiledQuery(db, (uploaderId: string, patientId: string, sopInstanceUid: string) =>
    duplicateInstanceQuery(uploaderId, patientId, sopInstanceUid),
  );

  /**
   * The content read's query (every read of a file or thumbnail asks it): only the columns the read
   * needs, no people, the viewer's share joined; compiled once.
   */
  const contentForViewer = compiledQuery(db, (id: string, viewerId: string) =>
    db
      .selectFrom('images')
      .leftJoin('shares as vs', (j) => j.onRef('vs.image_id', '=', 'images.id').on('vs.created_for', '=', viewerId))
      .select([
        ...STORED_OBJECT_COLUMNS,
        'images.original_name',
        'images.thumb_storage_key',
        'images.thumb_wrapped_key',
        'images.thumb_key_id',
        'images.thumb_content_type',
        'images.thumb_size_bytes',
        'images.thumb_sha256',
        'vs.id as viewer_share_id',
        'vs.revoked_at as viewer_share_revoked_at',
        'vs.expires_at as viewer_share_expires_at',
        'vs.verified_at as viewer_share_verified_at',
        'vs.locked_at as viewer_share_locked_at',
      ])
      .where('images.id', '=', id)
      .where('images.deleted_at', 'is', null)
      .modifyEnd(PREPARED),
  );

  return {
    async findUser(id: string): Promise<UserBrief | undefined> {
      const row = await db
        .selectFrom('users')
        .innerJoin('roles', 'roles.id', 'users.role_id')
        .select([
          'users.id',
          'users.firstname',
          'users.lastname',
          'users.active',
          'users.approved_at',
          sql<RoleName>`roles.name`.as('role'),
        ])
        .where('users.id', '=', id)
        .where('users.deleted_at', 'is', null)
        .modifyEnd(PREPARED)
        .executeTakeFirst();
      return (
        row && {
          id: row.id,
          firstname: row.firstname,
          lastname: row.lastname,
          role: row.role,
          active: row.active,
          approved: row.approved_at !== null,
        }
      );
    },

    /** Where a share mail goes (the one place this module reads an e-mail address). */
    contactOf: (id: string) =>
      db.selectFrom('users').select(['email', 'firstname']).where('id', '=', id).executeTakeFirstOrThrow(),

    /**
     * A new upload in one statement: the image, the patient's share (CTEs from the sharing module's
     * patient-share.ts, if any), the sealed DICOM metadata (if any) and the audit rows (CTEs from the
     * audit module) commit together; returns the row as `getLive` would.
     */
    insertUpload: async (
      image: Insertable<ImagesTable>,
      share: ShareCtes | null,
      dicomMetadata: Uint8Array | null,
      audit: AuditCtes,
    ): Promise<ImageWithPeople> => {
      const lead = share?.lead ? sql`${share.lead}, ` : sql``;
      const shared = share ? sql`, ${share.ctes}` : sql``;
      const metadata = dicomMetadata
        ? sql`, upload_metadata AS (${db.insertInto('dicom_metadata').values({ image_id: image.id!, sealed: dicomMetadata })})`
        : sql``;
      const { rows } = await sql<ImageWithPeople & { audited: boolean; shared: boolean }>`
        WITH ${lead}${audit.ctes}, inserted AS (${db.insertInto('images').values(image).returningAll()})${shared}${metadata}
        SELECT inserted.*, up.firstname AS uploader_firstname, up.lastname AS uploader_lastname,
          pt.firstname AS patient_firstname, pt.lastname AS patient_lastname, ${audit.applied} AS audited,
          ${share?.applied ?? sql<boolean>`true`} AS shared
        FROM inserted
        JOIN users up ON up.id = inserted.uploader_id
        LEFT JOIN users pt ON pt.id = inserted.patient_id ${PREPARED}`.execute(db);
      const { audited: _, shared: __, ...row } = rows[0]!;
      return row;
    },

    /**
     * The live image this uploader already stored for this patient (or for no patient) with this
     * SOP Instance UID, if any: the duplicate rule of `docs/product.md` › Upload. De-identified
     * copies are not uploads and are never matched. Its id first, its whole row only when there is
     * one (an image deleted in between is no duplicate).
     */
    findDuplicateInstance: (
      uploaderId: string,
      patientId: string | null,
      sopInstanceUid: string,
    ): Promise<ImageWithPeople | undefined> =>
      (patientId === null
        ? duplicateForNoPatient(uploaderId, sopInstanceUid)
        : duplicateForPatient(uploaderId, patientId, sopInstanceUid)
      ).then(([found]) => found && liveById(found.id).then((rows) => rows[0])),

    /** findDuplicateInstance's query, unexecuted (its plan is held to the index made for it: duplicate-plan.test.ts). */
    duplicateInstanceQuery,

    /** A live (not deleted) image with the names of its uploader and patient. */
    getLive: (id: string): Promise<ImageWithPeople | undefined> => liveById(id).then((rows) => rows[0]),

    isLive: (id: string): Promise<boolean> => isLiveImage(db, id),

    /** Whether any row (live or deleted) has this id: its blob is then the row's, not a stray. */
    hasRow: async (id: string): Promise<boolean> =>
      Boolean(await db.selectFrom('images').select('id').where('id', '=', id).executeTakeFirst()),

    /**
     * What the thumbnailer needs of these images, the live ones, in one round trip: it reads the rows
     * of the thumbnails it is about to make together (thumbnails.ts › THUMBNAIL_ROWS_PER_READ).
     */
    async getThumbnailSources(ids: readonly string[]): Promise<ThumbnailSource[]> {
      if (!ids.length) return [];
      return db
        .selectFrom('images')
        .select(STORED_OBJECT_COLUMNS)
        .where('images.id', 'in', ids)
        .where('images.deleted_at', 'is', null)
        .execute();
    },

    /**
     * A live image with its people, and the life of the viewer's share of it if there is one (at
     * most one per pair), in one round trip: every content read asks this.
     */
    async getLiveForViewer(
      id: string,
      viewerId: string,
    ): Promise<{ image: ImageWithPeople; share: ShareLife | undefined } | undefined> {
      const row = await imagesWithPeople()
        .leftJoin('shares as vs', (j) => j.onRef('vs.image_id', '=', 'images.id').on('vs.created_for', '=', viewerId))
        .select([
          'vs.id as viewer_share_id',
          'vs.revoked_at as viewer_share_revoked_at',
          'vs.expires_at as viewer_share_expires_at',
          'vs.verified_at as viewer_share_verified_at',
          'vs.locked_at as viewer_share_locked_at',
        ])
        .where('images.id', '=', id)
        .where('images.deleted_at', 'is', null)
        .modifyEnd(PREPARED)
        .executeTakeFirst();
      if (!row) return undefined;
      const {
        viewer_share_id: shareId,
        viewer_share_revoked_at: revoked_at,
        viewer_share_expires_at: expires_at,
        viewer_share_verified_at: verified_at,
        viewer_share_locked_at: locked_at,
        ...image
      } = row;
      return { image, share: shareId === null ? undefined : { revoked_at, expires_at, verified_at, locked_at } };
    },

    /** getLiveForViewer for a read of the bytes or thumbnail: the row as ContentSource, without people. */
    async getContentForViewer(
      id: string,
      viewerId: string,
    ): Promise<{ image: ContentSource; share: ShareLife | undefined } | undefined> {
      const [row] = await contentForViewer(id, viewerId);
      if (!row) return undefined;
      const {
        viewer_share_id: shareId,
        viewer_share_revoked_at: revoked_at,
        viewer_share_expires_at: expires_at,
        viewer_share_verified_at: verified_at,
        viewer_share_locked_at: locked_at,
        ...image
      } = row;
      return { image, share: shareId === null ? undefined : { revoked_at, expires_at, verified_at, locked_at } };
    },

    /** The share of an image to one user, if any (at most one per pair). */
    shareTo: (imageId: string, userId: string): Promise<ShareRow | undefined> =>
      db
        .selectFrom('shares')
        .selectAll()
        .where('image_id', '=', imageId)
        .where('created_for', '=', userId)
        .executeTakeFirst(),

    /**
     * A study's live DICOM images uploaded by `userId` or for them (not copies), in series then upload
     * order: what they may share by link once the patient's own have passed their share's code.
     */
    ownedInStudy: (userId: string, studyUid: string, max: number): Promise<ImageWithPeople[]> =>
      imagesWithPeople()
        .where('images.dicom_study_uid', '=', studyUid)
        .where('images.deleted_at', 'is', null)
        .where('images.deidentified', '=', false)
        .where((eb) => eb.or([eb('images.uploader_id', '=', userId), eb('images.patient_id', '=', userId)]))
        .orderBy('images.dicom_series_uid')
        .orderBy('images.created_at')
        .orderBy('images.id')
        .limit(max)
        .execute(),

    imagesByIds: (ids: string[]): Promise<ImageWithPeople[]> =>
      ids.length ? imagesWithPeople().where('images.id', 'in', ids).execute() : Promise.resolve([]),

    sharesByIds: (ids: string[]): Promise<ShareWithCreator[]> =>
      ids.length
        ? db
            .selectFrom('shares')
            .innerJoin('users as cr', 'cr.id', 'shares.created_by')
            .selectAll('shares')
            .select(['cr.firstname as creator_firstname', 'cr.lastname as creator_lastname'])
            .where('shares.id', 'in', ids)
            .execute()
        : Promise.resolve([]),

    /**
     * Own uploads and/or shares to the viewer, newest first. Each branch walks its own index in
     * order (images_uploader_live_idx, shares_recipient_idx), so a page costs its offset plus limit.
     */
    async listForViewer(
      viewerId: string,
      parts: { own: boolean; shared: boolean; filesOnly?: boolean },
      limit: number,
      offset: number,
      countCap: number | null = LIST_MAX_WINDOW + 1,
    ): Promise<{ entries: ListEntry[]; total: number }> {
      const files = parts.filesOnly ? sql` AND ${notInStudy('i')}` : sql``;
      // Each branch is cut to the rows the page can need, in its index's order: without the inner
      // ORDER BY/LIMIT the planner sorted every own image of a viewer with many (a seq scan and a
      // sort of 10^5 rows for one page, see bench/RESULTS.md "List scaling").
      const upTo = offset + limit;
      // A de-identified copy is not an upload: listed only to those it was shared with (shared branch).
      const own = sql`SELECT i.id AS image_id, NULL::uuid AS share_id, i.created_at AS sort_at
        FROM images i WHERE i.uploader_id = ${viewerId} AND i.deleted_at IS NULL AND NOT i.deidentified${files}
        ORDER BY i.created_at DESC, i.id DESC LIMIT ${upTo}`;
      const shared = sql`SELECT s.image_id, s.id AS share_id, s.created_at AS sort_at
        FROM shares s JOIN images i ON i.id = s.image_id
        WHERE s.created_for = ${viewerId} AND i.deleted_at IS NULL AND i.uploader_id <> ${viewerId}${files}
        ORDER BY s.created_at DESC, s.image_id DESC LIMIT ${upTo}`;
      const union = parts.own && parts.shared ? sql`(${own}) UNION ALL (${shared})` : parts.own ? own : shared;
      const page = await sql<ListEntry>`SELECT image_id, share_id, sort_at FROM (${union}) u
        ORDER BY sort_at DESC, image_id DESC LIMIT ${limit} OFFSET ${offset}`.execute(db);
      // Each branch is counted up to `countCap` only (a LIMITed subquery); the sum is then exact up
      // to the cap and above it whenever either branch reaches it. null: exact (dashboard counts).
      const ownRows = sql`SELECT 1 FROM images i
        WHERE i.uploader_id = ${viewerId} AND i.deleted_at IS NULL AND NOT i.deidentified${files}`;
      const sharedRows = sql`SELECT 1 FROM shares s JOIN images i ON i.id = s.image_id
        WHERE s.created_for = ${viewerId} AND i.deleted_at IS NULL AND i.uploader_id <> ${viewerId}${files}`;
      const count = (rows: typeof ownRows) =>
        countCap === null
          ? sql<{ n: number }>`SELECT count(*)::int AS n FROM (${rows}) t`.execute(db).then((r) => r.rows[0]?.n ?? 0)
          : countUpTo(db, rows, countCap);
      // Awaited together: awaiting one after the other would leave the second's rejection unhandled.
      const [o, sh] = await Promise.all([parts.own ? count(ownRows) : 0, parts.shared ? count(sharedRows) : 0]);
      const total = o + sh;
      return { entries: page.rows, total };
    },

    /**
     * Every live upload, newest first (de-identified copies are listed only to their recipients);
     * counted up to `countCap` only (the exact count of stored images is `countAll`).
     */
    async listAll(
      limit: number,
      offset: number,
      countCap: number = LIST_MAX_WINDOW + 1,
      filesOnly = false,
    ): Promise<{ entries: ListEntry[]; total: number }> {
      // Two builders, not one shared base: derived builders share a query id, which plugins key on.
      const live = () =>
        db
          .selectFrom('images as i')
          .where('i.deleted_at', 'is', null)
          .where('i.deidentified', '=', false)
          .$if(filesOnly, (q) => q.where(notInStudy('i')));
      const [rows, total] = await Promise.all([
        live()
          .select(['i.id as image_id', 'i.created_at as sort_at'])
          .orderBy('i.created_at', 'desc')
          .orderBy('i.id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
        countUpTo(db, live().select(sql`1`.as('one')), countCap),
      ]);
      return { entries: rows.map((r) => ({ image_id: r.image_id, share_id: null, sort_at: r.sort_at })), total };
    },

    async countAll(): Promise<{ total: number; shared: number }> {
      const { n } = await db
        .selectFrom('images')
        .select(sql<number>`count(*)::int`.as('n'))
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      const shared = await sql<{ n: number }>`SELECT count(DISTINCT s.image_id)::int AS n
        FROM shares s JOIN images i ON i.id = s.image_id
        WHERE i.deleted_at IS NULL AND ${shareNotEndedSql('s')}`.execute(db);
      return { total: n, shared: shared.rows[0]?.n ?? 0 };
    },

    /**
     * Locks a study share's row for share (as a joining upload's statement does), in a group commit's
     * transaction before any of its statements takes the audit head (db/group-commit.ts).
     */
    lockShareGroup: async (id: string): Promise<void> => {
      await sql`SELECT id FROM share_groups WHERE id = ${id}::uuid FOR SHARE`.execute(db);
    },

    /**
     * Soft-deletes the image and its de-identified copies (one reused for single shares, one per
     * study share: made from it, they go with it), revokes the shares of all of them and drops their
     * parsed metadata (one transaction, built on a transaction handle). Returns the rows deleted, the
     * image first; none when the image was deleted already.
     */
    async markDeleted(
      id: string,
      at: Date,
    ): Promise<Array<{ id: string; storage_key: string; thumb_storage_key: string | null }>> {
      // The image's row first, in a statement of its own: a copy being made waits for this lock
      // (dicom.repository.ts › lockLiveImage) or committed before it, and so is in the next
      // statement's snapshot. None: deleted by a request that committed first, copies and all.
      if ((await lockLiveImages(db, [id])) === 0) return [];
      const rows = await db
        .updateTable('images')
        .set({ deleted_at: at })
        .where((eb) => eb.or([eb('id', '=', id), eb('source_image_id', '=', id)]))
        .where('deleted_at', 'is', null)
        .returning(['id', 'storage_key', 'thumb_storage_key'])
        .execute();
      const image = rows.find((r) => r.id === id);
      if (!image) return [];
      const ids = rows.map((r) => r.id);
      await db
        .updateTable('shares')
        .set({ revoked_at: at })
        .where('image_id', 'in', ids)
        .where('revoked_at', 'is', null)
        .execute();
      // The parsed DICOM metadata is PHI: it goes with the image.
      await db.deleteFrom('dicom_metadata').where('image_id', 'in', ids).execute();
      return [image, ...rows.filter((r) => r !== image)];
    },

    revokeSharesTo: (userId: string, at: Date) =>
      db
        .updateTable('shares')
        .set({ revoked_at: at })
        .where('created_for', '=', userId)
        .where('revoked_at', 'is', null)
        .execute(),

    async uploadsPerDay(from: string, to: string, timeZone: string): Promise<Array<{ date: string; count: number }>> {
      const res = await sql<{
        date: string;
        count: number;
      }>`SELECT to_char(created_at AT TIME ZONE ${timeZone}, 'YYYY-MM-DD') AS date, count(*)::int AS count
        FROM images
        WHERE deleted_at IS NULL
          AND created_at >= (${from}::date::timestamp AT TIME ZONE ${timeZone})
          AND created_at < ((${to}::date + 1)::timestamp AT TIME ZONE ${timeZone})
        GROUP BY 1 ORDER BY 1`.execute(db);
      return res.rows;
    },

    /** Records a made thumbnail, only if the image still exists and still waits for one. */
    async setThumbnail(
      id: string,
      t: { key: string; wrappedKey: string; keyId: string; contentType: string; size: number; sha256: string },
    ): Promise<boolean> {
      const res = await db
        .updateTable('images')
        .set({
          thumbnail_status: 'ready',
          thumb_storage_key: t.key,
          thumb_wrapped_key: t.wrappedKey,
          thumb_key_id: t.keyId,
          thumb_content_type: t.contentType,
          thumb_size_bytes: t.size,
          thumb_sha256: t.sha256,
        })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .where('thumbnail_status', '=', 'pending')
        .modifyEnd(PREPARED)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) === 1;
    },

    /** With `from`, only while the status is still that one. */
    setThumbnailStatus: (id: string, status: ThumbnailStatus, from?: ThumbnailStatus) =>
      db
        .updateTable('images')
        .set({ thumbnail_status: status })
        .where('id', '=', id)
        .$if(from !== undefined, (q) => q.where('thumbnail_status', '=', from!))
        .execute(),

    pendingThumbnails: (limit: number) =>
      db
        .selectFrom('images')
        .select('id')
        .where('thumbnail_status', '=', 'pending')
        .where('deleted_at', 'is', null)
        .orderBy('created_at')
        .limit(limit)
        .execute(),

    /** Which of these blob keys a live image row points at (main object or thumbnail). */
    async referencedKeys(keys: string[]): Promise<Set<string>> {
      if (!keys.length) return new Set();
      const rows = await db
        .selectFrom('images')
        .select(['storage_key', 'thumb_storage_key'])
        .where('deleted_at', 'is', null)
        .where((eb) => eb.or([eb('storage_key', 'in', keys), eb('thumb_storage_key', 'in', keys)]))
        .execute();
      const found = new Set<string>();
      for (const r of rows) {
        found.add(r.storage_key);
        if (r.thumb_storage_key) found.add(r.thumb_storage_key);
      }
      return found;
    },

    /** Every live row's blob keys, in batches (consistency checks and tests). */
    liveKeysAfter: (afterId: string | null, limit: number) =>
      db
        .selectFrom('images')
        .select(['id', 'storage_key', 'thumb_storage_key'])
        .where('deleted_at', 'is', null)
        .$if(afterId !== null, (q) => q.where('id', '>', afterId!))
        .orderBy('id')
        .limit(limit)
        .execute(),
  };
}
export type ImagesRepository = ReturnType<typeof createImagesRepository>;

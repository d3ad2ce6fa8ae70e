import type { RoleName } from '@medshare/contracts';
import { type RawBuilder, sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { type Db, PREPARED } from '../../db/db.ts';
import { chunks } from '../../db/chunks.ts';
import type { ShareGroupRow, ShareRow } from '../../db/schema.ts';
import { type AuditCtes, appendAuditIn } from '../audit/audit.repository.ts';
import { instanceCopyKeySql } from '../images/study-instance.ts';
import { GROUP_MEMBER_CODE, MAX_SHARE_ATTEMPTS } from './share-state.ts';

export interface ShareWithPeople extends ShareRow {
  recipient_firstname: string;
  recipient_lastname: string;
  recipient_role: RoleName;
  creator_firstname: string;
  creator_lastname: string;
}

export interface ShareGroupWithPeople extends ShareGroupRow {
  recipient_firstname: string;
  recipient_lastname: string;
  recipient_role: RoleName;
  creator_firstname: string;
  creator_lastname: string;
}

/** A study share's instance counts over its live images. */
export interface GroupCounts {
  group_id: string;
  instances: number;
  series: number;
  /** One of its live images (the verify answer names one), and the study UID the recipient sees. */
  sample_image_id: string | null;
  sample_study_uid: string | null;
}

/** Share rows written by one INSERT: 8 parameters each, well under the 65 535 one statement may bind. */
const MEMBER_CHUNK = 1_000;
/** Ids bound by one `IN (…)` list. */
const ID_CHUNK = 5_000;

/** Who manages study shares: the uploader of one of their images or their creator, or anyone with `all`. */
export interface ShareManager {
  userId: string;
  all: boolean;
}

export function createSharingRepository(db: Db) {
  /** Takes the study share's row lock first, so that an image joining it waits for (or is seen by) this transaction. */
  const lockGroupRow = (id: string) => sql`SELECT id FROM share_groups WHERE id = ${id}::uuid FOR UPDATE`.execute(db);

  /**
   * Sets `column` on the group and on every instance row that has none yet (lock, revoke); false when
   * the group had it already (a second revoke changes nothing and is not recorded again).
   */
  async function stampGroup(id: string, column: 'locked_at' | 'revoked_at', at: Date): Promise<boolean> {
    await lockGroupRow(id);
    const group = await db
      .updateTable('share_groups')
      .set({ [column]: at })
      .where('id', '=', id)
      .where(column, 'is', null)
      .executeTakeFirst();
    await db
      .updateTable('shares')
      .set({ [column]: at })
      .where('group_id', '=', id)
      .where(column, 'is', null)
      .execute();
    return group.numUpdatedRows > 0n;
  }

  const withPeople = () =>
    db
      .selectFrom('shares')
      .innerJoin('users as rc', 'rc.id', 'shares.created_for')
      .innerJoin('roles as rr', 'rr.id', 'rc.role_id')
      .innerJoin('users as cr', 'cr.id', 'shares.created_by')
      .selectAll('shares')
      .select([
        'rc.firstname as recipient_firstname',
        'rc.lastname as recipient_lastname',
        sql<RoleName>`rr.name`.as('recipient_role'),
        'cr.firstname as creator_firstname',
        'cr.lastname as creator_lastname',
      ]);

  return {
    /** A share whose image is not deleted. */
    getLive: (id: string): Promise<(ShareWithPeople & { uploader_id: string }) | undefined> =>
      withPeople()
        .innerJoin('images', 'images.id', 'shares.image_id')
        .select('images.uploader_id')
        .where('shares.id', '=', id)
        .where('images.deleted_at', 'is', null)
        .executeTakeFirst(),

    /** The caption the recipient sees on the image card, for the share mail. */
    captionOf: async (imageId: string): Promise<string | undefined> =>
      (await db.selectFrom('images').select('caption').where('id', '=', imageId).executeTakeFirst())?.caption,

    /**
     * The shares of an image; `withCopies`: also those of its de-identified copy for single-image
     * shares, which is listed to nobody but its recipients (the source's list is where it is managed).
     */
    listForImage: (imageId: string, withCopies = false): Promise<ShareWithPeople[]> =>
      withPeople()
        .where((eb) =>
          withCopies
            ? eb.or([
                eb('shares.image_id', '=', imageId),
                eb(
                  'shares.image_id',
                  'in',
                  eb
                    .selectFrom('images as c')
                    .select('c.id')
                    .where('c.source_image_id', '=', imageId)
                    .where('c.deidentified', '=', true)
                    .where('c.copy_for_group', 'is', null)
                    .where('c.deleted_at', 'is', null),
                ),
              ])
            : eb('shares.image_id', '=', imageId),
        )
        .orderBy('shares.created_at', 'desc')
        .orderBy('shares.id')
        .execute(),

    /**
     * Creates the share unless the pair already has one (one row per image and recipient), in one
     * statement with its audit rows, which are appended only if this statement inserted the row:
     * of racing requests exactly one wins, and a loser changes nothing. `replacing` is the pair's
     * dead share (revoked, expired, or locked unverified), removed first; if it is no longer there
     * or no longer dead, nothing is inserted. Answers whether the share was created.
     */
    async createAudited(
      share: {
        id: string;
        imageId: string;
        createdBy: string;
        createdFor: string;
        codeHash: string;
        expiresAt: Date | null;
        isPatientShare: boolean;
      },
      replacing: string | null,
      audit: (created: RawBuilder<boolean>) => AuditCtes,
    ): Promise<boolean> {
      const { ctes, applied } = audit(sql<boolean>`EXISTS (SELECT 1 FROM share_inserted)`);
      const row = await sql<{ created: boolean; applied: boolean }>`
        WITH share_dead AS (
          DELETE FROM shares
          WHERE id = ${replacing}::uuid AND image_id = ${share.imageId} AND created_for = ${share.createdFor}
            AND (revoked_at IS NOT NULL OR expires_at <= now() OR (locked_at IS NOT NULL AND verified_at IS NULL))
          RETURNING id),
        share_inserted AS (
          INSERT INTO shares (id, image_id, created_by, created_for, code_hash, expires_at, is_patient_share)
          SELECT ${share.id}::uuid, ${share.imageId}::uuid, ${share.createdBy}::uuid, ${share.createdFor}::uuid,
            ${share.codeHash}, ${share.expiresAt}::timestamptz, ${share.isPatientShare}
          -- Reading share_dead runs the delete first; the row goes in only if the dead one went out.
          FROM (SELECT count(*) AS n FROM share_dead) AS d
          WHERE d.n = ${replacing === null ? 0 : 1}
          ON CONFLICT (image_id, created_for) DO NOTHING
          RETURNING id),
        ${ctes}
        SELECT EXISTS (SELECT 1 FROM share_inserted) AS created, ${applied} AS applied`.execute(db);
      return row.rows[0]!.created;
    },

    /** Removes a share in one statement with its audit rows (appended only if the row was there). */
    async deleteAudited(id: string, audit: (deleted: RawBuilder<boolean>) => AuditCtes): Promise<boolean> {
      const { ctes, applied } = audit(sql<boolean>`EXISTS (SELECT 1 FROM share_deleted)`);
      const row = await sql<{ deleted: boolean; applied: boolean }>`
        WITH share_deleted AS (DELETE FROM shares WHERE id = ${id}::uuid RETURNING id),
        ${ctes}
        SELECT EXISTS (SELECT 1 FROM share_deleted) AS deleted, ${applied} AS applied`.execute(db);
      return row.rows[0]!.deleted;
    },

    /** Counts a try before the code is checked, so parallel guesses stay bounded; null when none is left. */
    async takeAttempt(id: string): Promise<number | null> {
      const row = await db
        .updateTable('shares')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .where('locked_at', 'is', null)
        .where('attempts', '<', MAX_SHARE_ATTEMPTS)
        .returning('attempts')
        .executeTakeFirst();
      return row?.attempts ?? null;
    },

    lock: (id: string) =>
      db
        .updateTable('shares')
        .set({ locked_at: new Date() })
        .where('id', '=', id)
        .where('locked_at', 'is', null)
        .execute(),

    /**
     * Verifies a share still open (not revoked, not expired: either may have happened while the code
     * was checked); undefined when it is not.
     */
    markVerified: (id: string) =>
      db
        .updateTable('shares')
        .set((eb) => ({ verified_at: eb.fn.coalesce('verified_at', sql<Date>`now()`), attempts: 0 }))
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
        .returning(['verified_at'])
        .executeTakeFirst(),

    /** True when this call revoked it (false: it was revoked already). */
    revoke: async (id: string): Promise<boolean> => {
      const result = await db
        .updateTable('shares')
        .set({ revoked_at: new Date() })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    // Study shares (share_groups, migration 0011): the group decides; its instance rows follow it.

    /** A study share with its people, whatever its state; undefined when it does not exist. */
    getGroup: (id: string): Promise<ShareGroupWithPeople | undefined> =>
      db
        .selectFrom('share_groups as g')
        .innerJoin('users as rc', 'rc.id', 'g.created_for')
        .innerJoin('roles as rr', 'rr.id', 'rc.role_id')
        .innerJoin('users as cr', 'cr.id', 'g.created_by')
        .selectAll('g')
        .select([
          'rc.firstname as recipient_firstname',
          'rc.lastname as recipient_lastname',
          sql<RoleName>`rr.name`.as('recipient_role'),
          'cr.firstname as creator_firstname',
          'cr.lastname as creator_lastname',
        ])
        .where('g.id', '=', id)
        .executeTakeFirst(),

    /**
     * The study shares of a study (by the UID its sharer sees) that `manager` manages, newest first,
     * at most `limit`: filtered here, never every owner's groups read to be filtered afterwards.
     */
    listGroupsForStudy: (studyUid: string, manager: ShareManager, limit: number): Promise<ShareGroupWithPeople[]> =>
      db
        .selectFrom('share_groups as g')
        .innerJoin('users as rc', 'rc.id', 'g.created_for')
        .innerJoin('roles as rr', 'rr.id', 'rc.role_id')
        .innerJoin('users as cr', 'cr.id', 'g.created_by')
        .selectAll('g')
        .select([
          'rc.firstname as recipient_firstname',
          'rc.lastname as recipient_lastname',
          sql<RoleName>`rr.name`.as('recipient_role'),
          'cr.firstname as creator_firstname',
          'cr.lastname as creator_lastname',
        ])
        .where('g.study_uid', '=', studyUid)
        .$if(!manager.all, (q) =>
          q.where((eb) =>
            eb.or([
              eb('g.created_by', '=', manager.userId),
              eb.exists(
                eb
                  .selectFrom('shares as ms')
                  .innerJoin('images as mi', 'mi.id', 'ms.image_id')
                  .select(sql`1`.as('one'))
                  .whereRef('ms.group_id', '=', 'g.id')
                  .where('mi.uploader_id', '=', manager.userId),
              ),
            ]),
          ),
        )
        .orderBy('g.created_at', 'desc')
        .orderBy('g.id')
        .limit(limit)
        .execute(),

    /** Live instance counts of study shares, and the uploaders of their images (who may manage them). */
    async groupCounts(ids: string[]): Promise<Map<string, GroupCounts & { uploader_ids: string[] }>> {
      if (!ids.length) return new Map();
      const rows = await sql<GroupCounts & { uploader_ids: string[] }>`
        SELECT s.group_id, count(DISTINCT ${instanceCopyKeySql('i')})::int AS instances,
          count(DISTINCT i.dicom_series_uid)::int AS series,
          (array_agg(i.id ORDER BY i.dicom_series_uid, i.dicom_sop_instance_uid))[1] AS sample_image_id,
          (array_agg(i.dicom_study_uid))[1] AS sample_study_uid,
          array_agg(DISTINCT i.uploader_id) AS uploader_ids
        FROM shares s JOIN images i ON i.id = s.image_id
        WHERE s.group_id IN (${sql.join(ids.map((id) => sql`${id}::uuid`))}) AND i.deleted_at IS NULL
        GROUP BY s.group_id`.execute(db);
      return new Map(rows.rows.map((r) => [r.group_id, r]));
    },

    /** The recipient's shares of these images, whatever their state (one per image and recipient). */
    async sharesOfImagesTo(imageIds: string[], userId: string): Promise<ShareRow[]> {
      const found: ShareRow[] = [];
      for (const ids of chunks(imageIds, ID_CHUNK))
        found.push(
          ...(await db
            .selectFrom('shares')
            .selectAll()
            .where('image_id', 'in', ids)
            .where('created_for', '=', userId)
            .execute()),
        );
      return found;
    },

    /** Removes dead shares a new study share replaces (inside its transaction). */
    deleteShares: async (ids: string[]): Promise<void> => {
      for (const part of chunks(ids, ID_CHUNK)) await db.deleteFrom('shares').where('id', 'in', part).execute();
    },

    insertGroup: (group: {
      id: string;
      studyUid: string;
      createdBy: string;
      createdFor: string;
      codeHash: string;
      expiresAt: Date | null;
      isPatientShare: boolean;
      deidentified: boolean;
    }) =>
      db
        .insertInto('share_groups')
        .values({
          id: group.id,
          study_uid: group.studyUid,
          created_by: group.createdBy,
          created_for: group.createdFor,
          code_hash: group.codeHash,
          expires_at: group.expiresAt,
          is_patient_share: group.isPatientShare,
          deidentified: group.deidentified,
        })
        .execute(),

    /**
     * One share per image for the group (no code of its own: the group's decides), a bounded INSERT
     * at a time (inside the share's transaction). An image the recipient already has a share of is
     * skipped; answers how many went in, so the caller can refuse (and roll back) a study share that
     * would not cover every image.
     */
    async insertMembers(
      group: { id: string; createdBy: string; createdFor: string; expiresAt: Date | null; isPatientShare: boolean },
      imageIds: string[],
    ): Promise<number> {
      let inserted = 0;
      for (const part of chunks(imageIds, MEMBER_CHUNK)) {
        const rows = await db
          .insertInto('shares')
          .values(
            part.map((imageId) => ({
              id: randomUUID(),
              image_id: imageId,
              created_by: group.createdBy,
              created_for: group.createdFor,
              code_hash: GROUP_MEMBER_CODE,
              expires_at: group.expiresAt,
              is_patient_share: group.isPatientShare,
              group_id: group.id,
            })),
          )
          .onConflict((oc) => oc.columns(['image_id', 'created_for']).doNothing())
          .returning('id')
          .execute();
        inserted += rows.length;
      }
      return inserted;
    },

    /** Appends audit rows inside the caller's transaction (this repository is bound to it). */
    appendAudit: (audit: AuditCtes): Promise<void> => appendAuditIn(db, audit),

    /**
     * Removes a study share, its instance rows and the de-identified copies made for it
     * (images.copy_for_group cascades): a share whose mail never left.
     */
    deleteGroup: async (id: string): Promise<void> => {
      await db.deleteFrom('share_groups').where('id', '=', id).execute();
    },

    /** Counts a try on the group before the code is checked; null when none is left. */
    async takeGroupAttempt(id: string): Promise<number | null> {
      const row = await db
        .updateTable('share_groups')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .where('locked_at', 'is', null)
        .where('attempts', '<', MAX_SHARE_ATTEMPTS)
        .returning('attempts')
        .executeTakeFirst();
      return row?.attempts ?? null;
    },

    /** Locks the group and every instance row (inside a transaction). */
    lockGroup: (id: string, at: Date) => stampGroup(id, 'locked_at', at),

    /**
     * Verifies the group and every instance row (inside a transaction); answers the verification time,
     * or null when the group was revoked or expired while the code was checked.
     */
    async verifyGroup(id: string): Promise<Date | null> {
      await lockGroupRow(id);
      const row = await db
        .updateTable('share_groups')
        .set((eb) => ({ verified_at: eb.fn.coalesce('verified_at', sql<Date>`now()`), attempts: 0 }))
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
        .returning(['verified_at'])
        .executeTakeFirst();
      if (!row) return null;
      const at = new Date(row.verified_at!);
      await db
        .updateTable('shares')
        .set({ verified_at: at })
        .where('group_id', '=', id)
        .where('verified_at', 'is', null)
        .execute();
      return at;
    },

    /** Revokes the group and every instance row (inside a transaction): each image closes at once. */
    revokeGroup: (id: string, at: Date) => stampGroup(id, 'revoked_at', at),

    /**
     * The patient's open study share of an uploader's study (share_groups_patient_key): the one a new
     * image of that study for that patient joins. Revoked ones are over; a locked one only if it was
     * verified before (a verified share stays open). The join reads it again under a lock (patient-share.ts).
     */
    openPatientGroup: (uploaderId: string, patientId: string, studyUid: string): Promise<ShareGroupRow | undefined> =>
      db
        .selectFrom('share_groups')
        .selectAll()
        .where('created_by', '=', uploaderId)
        .where('created_for', '=', patientId)
        .where('study_uid', '=', studyUid)
        .where('is_patient_share', '=', true)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('locked_at', 'is', null), eb('verified_at', 'is not', null)]))
        .orderBy('created_at', 'desc')
        .limit(1)
        .modifyEnd(PREPARED)
        .executeTakeFirst(),

    /** A deleted account's study shares end with its image shares. */
    revokeGroupsTo: (userId: string, at: Date) =>
      db
        .updateTable('share_groups')
        .set({ revoked_at: at })
        .where('created_for', '=', userId)
        .where('revoked_at', 'is', null)
        .execute(),
  };
}

export type SharingRepository = ReturnType<typeof createSharingRepository>;

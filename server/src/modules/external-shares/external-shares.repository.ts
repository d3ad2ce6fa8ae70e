import { type Insertable, type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { ExternalShareRow, ExternalSharesTable } from '../../db/schema.ts';
import { type AuditCtes, appendAuditIn } from '../audit/audit.repository.ts';
import { shareOpensContentSql } from '../images/access-policy.ts';

export type ExternalShareWithSharer = ExternalShareRow & {
  sharer_firstname: string;
  sharer_lastname: string;
  /** The sharer's account now: a link opens only while it is active and not deleted. */
  sharer_active: boolean;
  sharer_deleted_at: Date | null;
};

/** Queries of external shares (`docs/architecture.md` › Sharing with someone without an account). */
export function createExternalSharesRepository(db: Db) {
  const withSharer = () =>
    db
      .selectFrom('external_shares as x')
      .innerJoin('users as u', 'u.id', 'x.created_by')
      .selectAll('x')
      .select([
        'u.firstname as sharer_firstname',
        'u.lastname as sharer_lastname',
        'u.active as sharer_active',
        'u.deleted_at as sharer_deleted_at',
      ]);

  /**
   * A share's images whose sharer (a value, or a column of the caller's query) could still share them
   * now: see `standingImageIds`.
   */
  const standing = (sharer: string | RawBuilder<unknown>) =>
    db
      .selectFrom('external_share_images as e')
      .innerJoin('images as i', 'i.id', 'e.image_id')
      .innerJoin('images as src', (j) =>
        j.on(sql<boolean>`src.id = CASE WHEN i.deidentified THEN i.source_image_id ELSE i.id END`),
      )
      .where('i.deleted_at', 'is', null)
      .where('src.deleted_at', 'is', null)
      .where(sql<boolean>`(src.uploader_id = ${sharer} OR (src.patient_id = ${sharer}
        AND EXISTS (SELECT 1 FROM shares ps WHERE ps.image_id = src.id AND ps.created_for = ${sharer}
          AND ${shareOpensContentSql('ps')})))`);

  return {
    /** The share and the images it opens, in viewing order. */
    create: async (share: Insertable<ExternalSharesTable>, imageIds: string[]): Promise<void> => {
      await db.insertInto('external_shares').values(share).execute();
      for (let i = 0; i < imageIds.length; i += 1000) {
        await db
          .insertInto('external_share_images')
          .values(imageIds.slice(i, i + 1000).map((image_id, k) => ({ share_id: share.id, image_id, position: i + k })))
          .execute();
      }
    },

    /** Appends audit rows inside the caller's transaction (this repository is bound to it). */
    appendAudit: (audit: AuditCtes): Promise<void> => appendAuditIn(db, audit),

    getById: (id: string): Promise<ExternalShareWithSharer | undefined> =>
      withSharer().where('x.id', '=', id).executeTakeFirst(),

    getByTokenHash: (hash: string): Promise<ExternalShareWithSharer | undefined> =>
      withSharer().where('x.token_hash', '=', hash).executeTakeFirst(),

    listByCreator: (userId: string, limit: number): Promise<ExternalShareWithSharer[]> =>
      withSharer().where('x.created_by', '=', userId).orderBy('x.created_at', 'desc').limit(limit).execute(),

    /** Every user's links, newest first (an administrator's list). */
    listAll: (limit: number): Promise<ExternalShareWithSharer[]> =>
      withSharer().orderBy('x.created_at', 'desc').limit(limit).execute(),

    imageCounts: async (ids: string[]): Promise<Map<string, number>> => {
      if (!ids.length) return new Map();
      const rows = await db
        .selectFrom('external_share_images')
        .select(['share_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('share_id', 'in', ids)
        .groupBy('share_id')
        .execute();
      return new Map(rows.map((r) => [r.share_id, Number(r.n)]));
    },

    /**
     * The share's images (in viewing order; `only`: that one, if the share holds it) that its sharer
     * could still share now: the image, or for a de-identified copy the image it was made from, is
     * live and is the sharer's upload, or their own record with their share to it verified and not
     * ended (what `ImagesService.ownImage` asks when a link is made). A patient whose share was
     * revoked, or an image deleted, no longer opens through the link
     * (`docs/architecture.md` › Sharing with someone without an account).
     */
    standingImageIds: async (share: { id: string; created_by: string }, only?: string): Promise<string[]> => {
      let query = standing(share.created_by).select('e.image_id').where('e.share_id', '=', share.id);
      if (only !== undefined) query = query.where('e.image_id', '=', only);
      return (await query.orderBy('e.position').execute()).map((r) => r.image_id);
    },

    /** How many images each share still opens (`standingImageIds`), for its sharer's list; absent: none. */
    standingCounts: async (ids: string[]): Promise<Map<string, number>> => {
      if (!ids.length) return new Map();
      const rows = await standing(sql.ref('s.created_by'))
        .innerJoin('external_shares as s', 's.id', 'e.share_id')
        .select(['e.share_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('e.share_id', 'in', ids)
        .groupBy('e.share_id')
        .execute();
      return new Map(rows.map((r) => [r.share_id, Number(r.n)]));
    },

    /** Ends every open link of a user (their account is being deleted); in the caller's transaction. */
    revokeByCreator: async (userId: string, at: Date): Promise<void> => {
      await db
        .updateTable('external_shares')
        .set({ revoked_at: at })
        .where('created_by', '=', userId)
        .where('revoked_at', 'is', null)
        .execute();
    },

    /**
     * Counts a try before the code is checked, atomically: null when the share is locked or has had
     * its tries (so parallel guesses cannot all pass the count).
     */
    takeAttempt: async (id: string, generation: number, max: number): Promise<number | null> => {
      const row = await db
        .updateTable('external_shares')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .where('generation', '=', generation)
        .where('locked_at', 'is', null)
        .where('attempts', '<', max)
        .returning('attempts')
        .executeTakeFirst();
      return row?.attempts ?? null;
    },

    /** A right code gives its try back: only wrong codes count towards the lock. */
    giveBackAttempt: async (id: string): Promise<void> => {
      await db
        .updateTable('external_shares')
        .set((eb) => ({ attempts: sql<number>`greatest(${eb.ref('attempts')} - 1, 0)` }))
        .where('id', '=', id)
        .execute();
    },

    lock: async (id: string, at: Date): Promise<void> => {
      await db
        .updateTable('external_shares')
        .set({ locked_at: at })
        .where('id', '=', id)
        .where('locked_at', 'is', null)
        .execute();
    },

    /** Null when it was revoked already. */
    revoke: async (id: string, at: Date): Promise<Date | null> => {
      const row = await db
        .updateTable('external_shares')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returning('revoked_at')
        .executeTakeFirst();
      return row?.revoked_at ?? null;
    },

    /**
     * A new link and code: the old link and every credential it gave end (generation), tries start
     * again. Only a share still running (not revoked, not expired, either of which may have happened
     * since the caller read it); false otherwise.
     */
    reissue: async (id: string, tokenHash: string, codeHash: string): Promise<boolean> => {
      const result = await db
        .updateTable('external_shares')
        .set((eb) => ({
          token_hash: tokenHash,
          code_hash: codeHash,
          generation: eb('generation', '+', 1),
          attempts: 0,
          locked_at: null,
        }))
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    countView: async (id: string, at: Date): Promise<void> => {
      await db
        .updateTable('external_shares')
        .set((eb) => ({ views: eb('views', '+', 1), last_viewed_at: at }))
        .where('id', '=', id)
        .execute();
    },

    /** A share whose mail never left. */
    delete: async (id: string): Promise<void> => {
      await db.deleteFrom('external_shares').where('id', '=', id).execute();
    },
  };
}
export type ExternalSharesRepository = ReturnType<typeof createExternalSharesRepository>;

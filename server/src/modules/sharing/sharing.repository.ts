import type { RoleName } from '@medshare/contracts';
import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { ShareRow } from '../../db/schema.ts';
import { MAX_SHARE_ATTEMPTS } from './share-state.ts';

export interface ShareWithPeople extends ShareRow {
  recipient_firstname: string;
  recipient_lastname: string;
  recipient_role: RoleName;
  creator_firstname: string;
  creator_lastname: string;
}

export function createSharingRepository(db: Db) {
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

    listForImage: (imageId: string): Promise<ShareWithPeople[]> =>
      withPeople()
        .where('shares.image_id', '=', imageId)
        .orderBy('shares.created_at', 'desc')
        .orderBy('shares.id')
        .execute(),

    /** Replaces a dead share of the same image to the same person (one row per pair). */
    async replace(share: {
      id: string;
      imageId: string;
      createdBy: string;
      createdFor: string;
      codeHash: string;
      expiresAt: Date | null;
      isPatientShare: boolean;
    }): Promise<void> {
      await db
        .deleteFrom('shares')
        .where('image_id', '=', share.imageId)
        .where('created_for', '=', share.createdFor)
        .execute();
      await db
        .insertInto('shares')
        .values({
          id: share.id,
          image_id: share.imageId,
          created_by: share.createdBy,
          created_for: share.createdFor,
          code_hash: share.codeHash,
          expires_at: share.expiresAt,
          is_patient_share: share.isPatientShare,
        })
        .execute();
    },

    delete: (id: string) => db.deleteFrom('shares').where('id', '=', id).execute(),

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

    markVerified: (id: string) =>
      db
        .updateTable('shares')
        .set((eb) => ({ verified_at: eb.fn.coalesce('verified_at', sql<Date>`now()`), attempts: 0 }))
        .where('id', '=', id)
        .returning(['verified_at'])
        .executeTakeFirstOrThrow(),

    revoke: (id: string) =>
      db
        .updateTable('shares')
        .set({ revoked_at: new Date() })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute(),
  };
}
export type SharingRepository = ReturnType<typeof createSharingRepository>;

import type { AccessState } from '@medshare/contracts';
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { ShareRow } from '../../db/schema.ts';
import type { Actor } from '../auth/actor.ts';
import { shareState } from '../sharing/share-state.ts';

/**
 * Who may see an image and its bytes. The share predicates exist twice, in JavaScript (one row in
 * hand) and in SQL (filters over many rows): they stand side by side here, and
 * access-policy.test.ts checks that each pair agrees on every state a share can be in.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Only a UUID can name an image or a user: anything else is unknown without a query (and no 500 from the cast). */
export const isUuid = (id: string) => UUID.test(id);

export type ShareLife = Pick<ShareRow, 'revoked_at' | 'expires_at' | 'verified_at' | 'locked_at'>;

/** Sees and manages every image (administrators). */
export const canSeeEverything = (actor: Pick<Actor, 'permissions'>) => actor.permissions.has('image:view_all');

/** The share opens the image's content: verified, neither revoked nor expired. */
export const shareOpensContent = (share: ShareLife, now = Date.now()) => shareState(share, now) === 'verified';

/** SQL of shareOpensContent over the shares row aliased `alias`. */
export const shareOpensContentSql = (alias: string): RawBuilder<SqlBool> =>
  sql<SqlBool>`(${sql.ref(`${alias}.verified_at`)} IS NOT NULL AND ${notEnded(alias)})`;

/** The share has not ended (pending, locked or verified): the image counts as shared. */
export const shareNotEnded = (share: ShareLife, now = Date.now()) => {
  const state = shareState(share, now);
  return state !== 'revoked' && state !== 'expired';
};

/** SQL of shareNotEnded over the shares row aliased `alias`. */
export const shareNotEndedSql = (alias: string): RawBuilder<SqlBool> => notEnded(alias);

/**
 * SQL: the image row aliased `alias` is in the viewer's DICOM lists and answers (study cards and
 * pages, QIDO-RS, WADO-RS): their own upload (every upload for `all`, image:view_all), or an image
 * shared with them by a share that opens its content. A de-identified copy is never an upload of its
 * own: it is listed only to those it was shared with (`docs/security.md` › Data at rest).
 */
export const listedContentSql = (alias: string, viewer: { userId: string; all: boolean }): RawBuilder<SqlBool> => {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<SqlBool>`(((${sql.lit(viewer.all)} OR ${col('uploader_id')} = ${viewer.userId}) AND NOT ${col('deidentified')})
    OR EXISTS (SELECT 1 FROM shares ls WHERE ls.image_id = ${col('id')} AND ls.created_for = ${viewer.userId}
      AND ${shareOpensContentSql('ls')}))`;
};

function notEnded(alias: string): RawBuilder<SqlBool> {
  const expires = sql.ref(`${alias}.expires_at`);
  return sql<SqlBool>`(${sql.ref(`${alias}.revoked_at`)} IS NULL AND (${expires} IS NULL OR ${expires} > now()))`;
}

export interface Access {
  state: AccessState;
  /** May read the bytes (content, thumbnail, DICOM UIDs and PHI). */
  content: boolean;
  /** May delete the image and manage its shares. */
  manage: boolean;
}

/** What the viewer may do with an image: null when they may not know it exists. */
export function accessOf(
  actor: Pick<Actor, 'userId' | 'permissions'>,
  image: { uploader_id: string },
  share: ShareLife | null | undefined,
): Access | null {
  if (image.uploader_id === actor.userId || canSeeEverything(actor))
    return { state: 'owner', content: true, manage: true };
  if (!share) return null;
  const state = shareState(share);
  return { state, content: state === 'verified', manage: false };
}

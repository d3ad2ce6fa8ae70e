import type { PermissionName } from '@medshare/contracts';
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/database.ts';
import { type DatabaseHandle, openDatabase } from '../../db/db.ts';
import type { ShareRow } from '../../db/schema.ts';
import { shareState } from '../sharing/share-state.ts';
import { accessOf, shareNotEnded, shareNotEndedSql, shareOpensContent, shareOpensContentSql } from './access-policy.ts';

type ShareLife = Pick<ShareRow, 'revoked_at' | 'expires_at' | 'verified_at' | 'locked_at'>;

const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms);
const later = (ms: number) => new Date(Date.now() + ms);
const none: ShareLife = { revoked_at: null, expires_at: null, verified_at: null, locked_at: null };

/** Every state a share can be in, and the combinations where the order of the rules matters. */
const cases: Array<[name: string, share: ShareLife, state: ReturnType<typeof shareState>]> = [
  ['new (no code entered)', none, 'pending'],
  ['pending, expires later', { ...none, expires_at: later(DAY) }, 'pending'],
  ['verified (live)', { ...none, verified_at: ago(DAY) }, 'verified'],
  ['verified, expires later', { ...none, verified_at: ago(DAY), expires_at: later(DAY) }, 'verified'],
  ['verified, then wrong codes locked it', { ...none, verified_at: ago(DAY), locked_at: ago(1000) }, 'verified'],
  ['locked before verification', { ...none, locked_at: ago(DAY) }, 'locked'],
  ['expired, never verified', { ...none, expires_at: ago(DAY) }, 'expired'],
  ['expired after verification', { ...none, verified_at: ago(2 * DAY), expires_at: ago(DAY) }, 'expired'],
  ['expired and locked', { ...none, locked_at: ago(2 * DAY), expires_at: ago(DAY) }, 'expired'],
  ['revoked', { ...none, revoked_at: ago(DAY) }, 'revoked'],
  ['revoked after verification', { ...none, verified_at: ago(2 * DAY), revoked_at: ago(DAY) }, 'revoked'],
  ['revoked, expires later', { ...none, revoked_at: ago(DAY), expires_at: later(DAY) }, 'revoked'],
  ['revoked and expired', { ...none, revoked_at: ago(DAY), expires_at: ago(DAY) }, 'revoked'],
];

let handle: DatabaseHandle;
let drop: () => Promise<void>;
beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  handle = await openDatabase(database.target);
});
afterAll(async () => {
  await handle?.close();
  await drop?.();
});

/** A predicate evaluated by the database on one share's columns. */
async function inSql(predicate: (alias: string) => RawBuilder<SqlBool>, share: ShareLife) {
  const { rows } = await sql<{ yes: boolean }>`SELECT ${predicate('s')} AS yes FROM (VALUES (
      ${share.revoked_at}::timestamptz, ${share.expires_at}::timestamptz,
      ${share.verified_at}::timestamptz, ${share.locked_at}::timestamptz
    )) AS s(revoked_at, expires_at, verified_at, locked_at)`.execute(handle.db);
  return rows[0]!.yes;
}

describe('share liveness: the JavaScript and SQL predicates agree', () => {
  it.each(cases)('%s', async (_name, share, state) => {
    expect(shareState(share)).toBe(state);
    const opens = shareOpensContent(share);
    const notEnded = shareNotEnded(share);
    expect(opens).toBe(state === 'verified');
    expect(notEnded).toBe(state !== 'revoked' && state !== 'expired');
    expect(await inSql(shareOpensContentSql, share)).toBe(opens);
    expect(await inSql(shareNotEndedSql, share)).toBe(notEnded);
  });
});

describe('accessOf', () => {
  const viewer = { userId: 'viewer', permissions: new Set<PermissionName>() };
  const admin = { userId: 'admin', permissions: new Set<PermissionName>(['image:view_all']) };
  const image = { uploader_id: 'uploader' };

  it('the uploader and image:view_all see and manage, with no share', () => {
    expect(accessOf({ ...viewer, userId: 'uploader' }, image, null)).toEqual({
      state: 'owner',
      content: true,
      manage: true,
    });
    expect(accessOf(admin, image, undefined)).toEqual({ state: 'owner', content: true, manage: true });
  });

  it('without a share the image does not exist for the viewer', () => {
    expect(accessOf(viewer, image, null)).toBeNull();
  });

  it.each(cases)('through a share that is %s: content only when the SQL filter opens it too', async (_n, share) => {
    const access = accessOf(viewer, image, share);
    expect(access).toEqual({ state: shareState(share), content: shareOpensContent(share), manage: false });
    expect(access!.content).toBe(await inSql(shareOpensContentSql, share));
  });
});

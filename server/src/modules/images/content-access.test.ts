import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SignedIn,
  type TestApp,
  createTestApp,
  loginAdmin,
  newUser,
  secondInstance,
  shareImage,
  twoInstancesSkip,
} from '../../../test/harness.ts';
import { type TcpProxy, startTcpProxy, throughProxy } from '../../../test/tcp-proxy.ts';
import type { Actor } from '../auth/actor.ts';
import type { ShareLife } from './access-policy.ts';
import { type ContentRead, createContentAccessCache } from './content-access.ts';
import type { ContentSource } from './images.repository.ts';
import { fixture, uploadFile } from './images.test-helpers.ts';

// Content reads' rows held a moment (issue 16; docs/security.md › Identity and sessions): every way
// access ends must reach a read answered from memory at once.

const read = (viewerId: string, imageId: string, share?: ShareLife): ContentRead => ({
  viewerId,
  image: { id: imageId } as ContentSource,
  share,
});

describe('content access cache', () => {
  const cacheOf = (hears = () => true) =>
    createContentAccessCache({ maxAgeMs: 5_000, maxEntries: 100, hearsRevocations: hears });

  it('holds a row for its viewer and image only, for maxAgeMs', () => {
    const cache = cacheOf();
    cache.keep(read('alice', 'img1'), cache.epoch(), 1_000);
    expect(cache.get('alice', 'img1', 6_000)?.image.id).toBe('img1');
    expect(cache.get('bob', 'img1', 1_000)).toBeNull();
    expect(cache.get('alice', 'img2', 1_000)).toBeNull();
    expect(cache.get('alice', 'img1', 6_001)).toBeNull();
  });

  it("drops a viewer's rows when their access ends, and every viewer's rows of a deleted image", () => {
    const cache = cacheOf();
    for (const [v, i] of [
      ['alice', 'img1'],
      ['alice', 'img2'],
      ['bob', 'img1'],
      ['bob', 'img3'],
    ] as const)
      cache.keep(read(v, i), cache.epoch(), 0);
    cache.forget({ userIds: ['alice'], imageIds: [] });
    expect(cache.get('alice', 'img2', 1)).toBeNull();
    expect(cache.get('bob', 'img1', 1)).not.toBeNull();
    cache.forget({ userIds: [], imageIds: ['img1'] });
    expect(cache.get('bob', 'img1', 1)).toBeNull();
    expect(cache.get('bob', 'img3', 1)).not.toBeNull();
    cache.forget(null);
    expect(cache.size).toBe(0);
  });

  it('does not keep a row read while access ended anywhere: it may predate the commit', () => {
    const cache = cacheOf();
    const readAt = cache.epoch();
    cache.forget({ userIds: ['someone else'], imageIds: [] });
    cache.keep(read('alice', 'img1'), readAt, 0);
    expect(cache.get('alice', 'img1', 1)).toBeNull();
  });

  it('serves and keeps nothing while events from other instances cannot arrive (Redis away)', () => {
    let hears = true;
    const cache = cacheOf(() => hears);
    cache.keep(read('alice', 'img1'), cache.epoch(), 0);
    hears = false;
    expect(cache.get('alice', 'img1', 1)).toBeNull();
    cache.keep(read('alice', 'img2'), cache.epoch(), 0);
    hears = true;
    expect(cache.get('alice', 'img2', 1)).toBeNull();
  });
});

interface People {
  owner: SignedIn;
  recipient: SignedIn;
  admin: SignedIn;
}

async function people(t: TestApp): Promise<People> {
  return {
    owner: await newUser(t, 'healthProvider'),
    recipient: await newUser(t, 'healthProvider'),
    admin: await loginAdmin(t),
  };
}

const contentOf = (t: TestApp, id: string, token: string, variant = 'content') =>
  t.request({ method: 'GET', url: `/api/images/${id}/${variant}`, token });

async function newImage(t: TestApp, owner: SignedIn): Promise<string> {
  const res = await uploadFile(t, owner.token, fixture('other/photo_hopper_portrait.jpg'), { caption: 'Scan' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

/** Shares the image with `to` and enters the mailed code: the recipient reads it. */
const shareVerified = (t: TestApp, id: string, owner: SignedIn, to: SignedIn) =>
  shareImage(t, id, owner, to, { unlock: true });

/** Reads twice: the second answer comes from the row the first kept. */
async function readTwice(t: TestApp, id: string, who: SignedIn): Promise<void> {
  for (let i = 0; i < 2; i++) expect((await contentOf(t, id, who.token)).statusCode).toBe(200);
  expect(t.app.ctx.contentAccess.get(who.user.id, id, Date.now())).not.toBeNull();
}

describe('reads answered from memory end with access, on one instance', () => {
  let t: TestApp;
  let p: People;
  beforeAll(async () => {
    t = await createTestApp();
    p = await people(t);
  });
  afterAll(async () => t?.close());

  it('refuses the next read once the share is revoked, and audits the refusal', async () => {
    const id = await newImage(t, p.owner);
    const sharingId = await shareVerified(t, id, p.owner, p.recipient);
    await readTwice(t, id, p.recipient);
    const revoke = await t.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: p.owner.token });
    expect(revoke.statusCode).toBe(200);
    expect((await contentOf(t, id, p.recipient.token)).statusCode).toBe(404);
    expect((await contentOf(t, id, p.recipient.token, 'thumbnail')).statusCode).toBe(404);
    const refusals = await t.app.ctx.database.db
      .selectFrom('audit_logs')
      .select(['action_type', 'status'])
      .where('record_id', '=', id)
      .where('user_id', '=', p.recipient.user.id)
      .where('status', '=', 'failure')
      .execute();
    expect(refusals.map((r) => r.action_type).sort()).toEqual(['image.thumbnail', 'image.view']);
    // The owner's own reads were never the recipient's to end.
    expect((await contentOf(t, id, p.owner.token)).statusCode).toBe(200);
  });

  it("refuses every viewer's next read once the image is deleted", async () => {
    const id = await newImage(t, p.owner);
    await shareVerified(t, id, p.owner, p.recipient);
    for (const who of [p.owner, p.recipient, p.admin]) await readTwice(t, id, who);
    const del = await t.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: p.owner.token });
    expect(del.statusCode).toBe(200);
    for (const who of [p.owner, p.recipient, p.admin]) expect((await contentOf(t, id, who.token)).statusCode).toBe(404);
  });

  it("refuses a deactivated user's next read (their sessions end, and their rows with them)", async () => {
    const id = await newImage(t, p.owner);
    const leaving = await newUser(t, 'healthProvider');
    await shareVerified(t, id, p.owner, leaving);
    await readTwice(t, id, leaving);
    const off = await t.request({
      method: 'PUT',
      url: `/api/users/toggleUserStatus/${leaving.user.id}`,
      token: p.admin.token,
    });
    expect(off.statusCode, off.body).toBe(200);
    expect(t.app.ctx.contentAccess.get(leaving.user.id, id, Date.now())).toBeNull();
    expect((await contentOf(t, id, leaving.token)).statusCode).toBe(401);
  });

  it('reads a thumbnail made after its row was held, rather than answering from the held row', async () => {
    const id = await newImage(t, p.owner);
    await t.app.ctx.services.images.idle();
    const db = t.app.ctx.database.db;
    // The row as it was before the thumbnail job finished: held by a content read.
    await db.updateTable('images').set({ thumbnail_status: 'pending' }).where('id', '=', id).execute();
    await readTwice(t, id, p.owner);
    expect(t.app.ctx.contentAccess.get(p.owner.user.id, id, Date.now())?.image.thumbnail_status).toBe('pending');
    await db.updateTable('images').set({ thumbnail_status: 'ready' }).where('id', '=', id).execute();
    const thumb = await contentOf(t, id, p.owner.token, 'thumbnail');
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/jpeg');
  });

  it('reads again a held row that would refuse now, rather than refusing from memory', async () => {
    const id = await newImage(t, p.owner);
    await shareVerified(t, id, p.owner, p.recipient);
    await readTwice(t, id, p.recipient);
    // The held share as if it had expired, while the database has another that opens the bytes
    // (a fresh share verified within the 5 s): the memory only ever says yes.
    const held = t.app.ctx.contentAccess.get(p.recipient.user.id, id, Date.now())!;
    held.share = { ...held.share!, expires_at: new Date(Date.now() - 1_000) };
    expect((await contentOf(t, id, p.recipient.token)).statusCode).toBe(200);
    // Any spelling of the id reaches the held row.
    expect((await contentOf(t, id.toUpperCase(), p.recipient.token)).statusCode).toBe(200);
  });

  it('decides each read on the actor as it is now, not as it was when the row was kept', async () => {
    const id = await newImage(t, p.owner);
    await readTwice(t, id, p.admin);
    // The same session without image:view_all (as after a role edit reached the session): no access.
    const { services } = t.app.ctx;
    const admin: Actor = {
      userId: p.admin.user.id,
      sessionId: 'held',
      role: 'admin',
      permissions: new Set(),
      ip: null,
    };
    await expect(services.images.openContent(admin, id, 'content', false)).rejects.toMatchObject({ status: 404 });
  });
});

const redisUrl = process.env.TEST_REDIS_URL;

describe.skipIf(twoInstancesSkip !== null)(
  `reads answered from memory end with access, across two instances through Redis${twoInstancesSkip ? ` (skipped: ${twoInstancesSkip})` : ''}`,
  () => {
    let a: TestApp;
    let b: TestApp;
    let bRedis: TcpProxy;
    let p: People;
    beforeAll(async () => {
      a = await createTestApp((c) => {
        c.redisUrl = redisUrl!;
      });
      // B reaches Redis through a proxy of its own, so that a test can cut it off alone.
      const u = new URL(redisUrl!);
      bRedis = await startTcpProxy({ host: u.hostname, port: Number(u.port || 6379) });
      b = await secondInstance(a, (c) => {
        c.redisUrl = throughProxy(redisUrl!, bRedis);
      });
      // Both subscribed, so that each hears the other's events.
      for (const t of [a, b]) while (t.app.ctx.realtime.bus.degraded) await new Promise((r) => setTimeout(r, 10));
      p = await people(a);
    });
    // The first app owns the database the other borrows: close the borrower first.
    afterAll(async () => {
      await b?.close();
      await a?.close();
      await bRedis?.close();
    });

    /** B's next read is refused within the bus's delivery (a local Redis: milliseconds), and stays refused. */
    async function refusedOnB(id: string, who: SignedIn): Promise<void> {
      await expect
        .poll(async () => (await contentOf(b, id, who.token)).statusCode, { timeout: 1_000, interval: 5 })
        .toBe(404);
      expect((await contentOf(b, id, who.token)).statusCode).toBe(404);
    }

    it('a share revoked on A ends the reads B answers from memory', async () => {
      const id = await newImage(a, p.owner);
      const sharingId = await shareVerified(a, id, p.owner, p.recipient);
      await readTwice(b, id, p.recipient);
      expect(
        (await a.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: p.owner.token })).statusCode,
      ).toBe(200);
      await refusedOnB(id, p.recipient);
    });

    it('an image deleted on A ends every viewer’s reads on B', async () => {
      const id = await newImage(a, p.owner);
      await shareVerified(a, id, p.owner, p.recipient);
      for (const who of [p.recipient, p.admin]) await readTwice(b, id, who);
      expect(
        (await a.request({ method: 'DELETE', url: `/api/upload/image/${id}`, token: p.owner.token })).statusCode,
      ).toBe(200);
      for (const who of [p.recipient, p.admin]) await refusedOnB(id, who);
    });

    it('while B cannot hear A, B answers nothing from memory: a share revoked on A is refused on B at once', async () => {
      const id = await newImage(a, p.owner);
      const sharingId = await shareVerified(a, id, p.owner, p.recipient);
      await readTwice(b, id, p.recipient);
      await bRedis.cut();
      while (!b.app.ctx.realtime.bus.degraded) await new Promise((r) => setTimeout(r, 10));
      expect(
        (await a.request({ method: 'DELETE', url: `/api/sharing/${sharingId}`, token: p.owner.token })).statusCode,
      ).toBe(200);
      // A's event never reached B; B's held row would still say yes.
      expect(b.app.ctx.contentAccess.size).toBeGreaterThan(0);
      expect((await contentOf(b, id, p.recipient.token)).statusCode).toBe(404);
      await bRedis.restore();
      while (b.app.ctx.realtime.bus.degraded) await new Promise((r) => setTimeout(r, 10));
      // Back: events may have been missed, so everything held was dropped.
      expect(b.app.ctx.contentAccess.size).toBe(0);
      expect((await contentOf(b, id, p.recipient.token)).statusCode).toBe(404);
    });
  },
);

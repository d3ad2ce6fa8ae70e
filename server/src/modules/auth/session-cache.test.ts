import { describe, expect, it } from 'vitest';
import type { SessionForAuth } from './auth.repository.ts';
import { createSessionCache } from './session-cache.ts';

const session = (id: string, userId: string): SessionForAuth => ({
  id,
  user_id: userId,
  expires_at: new Date(Date.now() + 3_600_000),
  last_seen_at: new Date(),
  revoked_at: null,
  live_user_id: userId,
  active: true,
  approved_at: new Date(),
  role: 'patient',
});

const cacheOf = (over: { hears?: () => boolean; maxEntries?: number } = {}) =>
  createSessionCache({
    maxAgeMs: 5_000,
    maxEntries: over.maxEntries ?? 100,
    hearsRevocations: over.hears ?? (() => true),
  });

describe('session cache (docs/security.md › Identity and sessions)', () => {
  it('serves a session read alive until its age passes maxAgeMs', () => {
    const cache = cacheOf();
    cache.keep(session('s1', 'u1'), cache.epoch(), 1_000);
    expect(cache.get('s1', 1_000)?.user_id).toBe('u1');
    expect(cache.get('s1', 6_000)?.user_id).toBe('u1');
    expect(cache.get('s1', 6_001)).toBeNull();
    expect(cache.size).toBe(0);
  });

  it("drops every session of a revoked user at once, and everyone's on a resync", () => {
    const cache = cacheOf();
    cache.keep(session('a1', 'alice'), cache.epoch(), 0);
    cache.keep(session('a2', 'alice'), cache.epoch(), 0);
    cache.keep(session('b1', 'bob'), cache.epoch(), 0);
    cache.forget(['alice']);
    expect(cache.get('a1', 1)).toBeNull();
    expect(cache.get('a2', 1)).toBeNull();
    expect(cache.get('b1', 1)?.user_id).toBe('bob');
    cache.forget(null);
    expect(cache.get('b1', 1)).toBeNull();
  });

  it('does not keep a row read while a revocation was heard: it may predate the revoking commit', () => {
    const cache = cacheOf();
    const readAt = cache.epoch();
    // The database answered "alive"; meanwhile another instance revoked the session and said so.
    cache.forget(['alice']);
    cache.keep(session('a1', 'alice'), readAt, 0);
    expect(cache.get('a1', 1)).toBeNull();
    // A read begun after the event is kept.
    cache.keep(session('a1', 'alice'), cache.epoch(), 0);
    expect(cache.get('a1', 1)?.id).toBe('a1');
  });

  it('serves and keeps nothing while revocations from other instances cannot arrive (Redis away)', () => {
    let hears = true;
    const cache = cacheOf({ hears: () => hears });
    cache.keep(session('a1', 'alice'), cache.epoch(), 0);
    hears = false;
    expect(cache.get('a1', 1)).toBeNull();
    cache.keep(session('b1', 'bob'), cache.epoch(), 0);
    hears = true;
    expect(cache.get('b1', 1)).toBeNull();
  });

  it('holds at most maxEntries sessions, the oldest making room', () => {
    const cache = cacheOf({ maxEntries: 3 });
    for (const id of ['s1', 's2', 's3', 's4']) cache.keep(session(id, `u-${id}`), cache.epoch(), 0);
    expect(cache.size).toBe(3);
    expect(cache.get('s1', 1)).toBeNull();
    expect(cache.get('s4', 1)?.id).toBe('s4');
  });

  it('moves the last use forward when the session is touched', () => {
    const cache = cacheOf();
    const s = { ...session('s1', 'u1'), last_seen_at: new Date(0) };
    cache.keep(s, cache.epoch(), 0);
    const at = new Date();
    cache.touched('s1', at);
    expect(cache.get('s1', 1)?.last_seen_at).toEqual(at);
  });
});

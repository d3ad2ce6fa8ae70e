import type { SessionForAuth } from './auth.repository.ts';

export interface SessionCacheOptions {
  /** How long a session read from the database vouches for itself here. */
  maxAgeMs: number;
  /** Most sessions held; the oldest entry makes room. */
  maxEntries: number;
  /**
   * Whether every revocation anywhere reaches this process now: true with one process, or with the
   * Redis bus while it is connected; false while Redis is away (nothing is then cached or served).
   */
  hearsRevocations: () => boolean;
}

/**
 * Sessions this process read as alive a moment ago, so that a burst of reads (a viewer scrolling a
 * study, a DICOMweb client retrieving it) does not ask the database for the same session each time
 * (issue 16; docs/security.md › Identity and sessions). It only ever says "alive": a session it does not hold,
 * holds for longer than `maxAgeMs`, or would call idle or expired is read from the database again.
 *
 * Revocation stays immediate. Every revocation (logout, password reset, deactivation, deletion)
 * publishes a `sessions` event after it commits; `forget` drops those users' entries, synchronously
 * in the revoking process and on the others as the Redis bus delivers it. A read that was in flight
 * while any revocation was heard is not kept (the epoch), so a row read just before a commit cannot
 * outlive the event that followed it.
 */
export function createSessionCache({ maxAgeMs, maxEntries, hearsRevocations }: SessionCacheOptions) {
  const entries = new Map<string, { session: SessionForAuth; at: number }>();
  let epoch = 0;

  return {
    /** The session if this process read it alive within `maxAgeMs` and nothing revoked it since. */
    get(id: string, now: number): SessionForAuth | null {
      if (!hearsRevocations()) return null;
      const entry = entries.get(id);
      if (!entry) return null;
      if (now - entry.at > maxAgeMs) {
        entries.delete(id);
        return null;
      }
      return entry.session;
    },

    /** Hand this to `keep` with what a database read returned. */
    epoch: () => epoch,

    /** Keeps a session read alive, unless a revocation was heard since `readAt` began. */
    keep(session: SessionForAuth, readAt: number, now: number): void {
      if (readAt !== epoch || !hearsRevocations()) return;
      entries.delete(session.id);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(session.id, { session, at: now });
    },

    /** The session's last use was written to the database: idle time counts from it here too. */
    touched(id: string, at: Date): void {
      const entry = entries.get(id);
      if (entry) entry.session = { ...entry.session, last_seen_at: at };
    },

    /** Drops the sessions of these users (every session with `null`: events may have been missed). */
    forget(userIds: readonly string[] | null): void {
      epoch++;
      if (userIds === null) return entries.clear();
      const users = new Set(userIds);
      for (const [id, entry] of entries) if (users.has(entry.session.user_id)) entries.delete(id);
    },

    get size(): number {
      return entries.size;
    },
  };
}
export type SessionCache = ReturnType<typeof createSessionCache>;

import { type RecentReadsOptions, createRecentReads } from '../../realtime/recent-reads.ts';
import type { SessionForAuth } from './auth.repository.ts';

/**
 * Sessions this process read as alive a moment ago, so that a burst of reads (a viewer scrolling a
 * study, a DICOMweb client retrieving it) does not ask the database for the same session each time
 * (issue 16; docs/security.md › Identity and sessions). It only ever says "alive": a session it does not hold,
 * holds for longer than `maxAgeMs`, or would call idle or expired is read from the database again.
 *
 * Revocation stays immediate. Every revocation (logout, password reset, deactivation, deletion)
 * publishes a `sessions` event after it commits; `forget` drops those users' entries, synchronously
 * in the revoking process and on the others as the Redis bus delivers it (realtime/recent-reads.ts).
 */
export function createSessionCache(options: RecentReadsOptions) {
  const reads = createRecentReads<SessionForAuth>(options);
  return {
    /** The session if this process read it alive within `maxAgeMs` and nothing revoked it since. */
    get: (id: string, now: number): SessionForAuth | null => reads.get(id, now),

    /** Hand this to `keep` with what a database read returned. */
    epoch: () => reads.epoch(),

    /** Keeps a session read alive, unless a revocation was heard since `readAt` began. */
    keep: (session: SessionForAuth, readAt: number, now: number): void => reads.keep(session.id, session, readAt, now),

    /** The session's last use was written to the database: idle time counts from it here too. */
    touched: (id: string, at: Date): void => reads.update(id, (session) => ({ ...session, last_seen_at: at })),

    /** Drops the sessions of these users (every session with `null`: events may have been missed). */
    forget(userIds: readonly string[] | null): void {
      if (userIds === null) return reads.forget(null);
      const users = new Set(userIds);
      reads.forget((session) => users.has(session.user_id));
    },

    get size(): number {
      return reads.size;
    },
  };
}
export type SessionCache = ReturnType<typeof createSessionCache>;

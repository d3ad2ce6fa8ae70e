import { type RecentReadsOptions, createRecentReads } from '../../realtime/recent-reads.ts';
import type { ShareLife } from './access-policy.ts';
import type { ContentSource } from './images.repository.ts';

/** A content read's row as the database answered it for one viewer: the image and the viewer's share. */
export interface ContentRead {
  viewerId: string;
  image: ContentSource;
  share: ShareLife | undefined;
}

/** What ended access (an `access` event): every read held for these viewers, and of these images. */
export interface AccessEnded {
  userIds: readonly string[];
  imageIds: readonly string[];
}

/**
 * Content reads (`GET /api/images/:id/content` and `/thumbnail`) this process answered from the
 * database a moment ago with the bytes open to their viewer, so that a burst of reads of the same
 * images (a viewer's page of thumbnails, a client retrieving files) does not ask PostgreSQL for the
 * image and its share each time (issue 16; docs/security.md › Identity and sessions).
 *
 * It holds rows, not decisions: every read still decides with `accessOf` on the actor's current
 * permissions and the share's expiry at that moment, and is audited before its first byte. Only rows
 * that opened the bytes are kept, so what opens access later (a share verified, a thumbnail made)
 * never waits here. What ends access publishes an `access` event after it commits: a share revoked
 * (its recipient's reads), an image deleted (everyone's reads of it); a `sessions` event drops the
 * user's reads too (deactivation, deletion). realtime/recent-reads.ts says how a race with the event
 * is closed.
 */
export function createContentAccessCache(options: RecentReadsOptions) {
  const reads = createRecentReads<ContentRead>(options);
  const keyOf = (viewerId: string, imageId: string) => `${viewerId}/${imageId}`;
  return {
    /** The row this viewer's read of the image got within `maxAgeMs`, if it opened the bytes and nothing ended it since. */
    get: (viewerId: string, imageId: string, now: number): ContentRead | null =>
      reads.get(keyOf(viewerId, imageId), now),

    /** Hand this to `keep` with what the database read returned; take it before the read starts. */
    epoch: () => reads.epoch(),

    /** Keeps a row that opened the bytes to its viewer, unless access ended anywhere since `readAt`. */
    keep: (read: ContentRead, readAt: number, now: number): void =>
      reads.keep(keyOf(read.viewerId, read.image.id), read, readAt, now),

    /** Drops what `ended` names (everything with `null`: events may have been missed). */
    forget(ended: AccessEnded | null): void {
      if (ended === null) return reads.forget(null);
      const viewers = new Set(ended.userIds);
      const images = new Set(ended.imageIds);
      reads.forget((read) => viewers.has(read.viewerId) || images.has(read.image.id));
    },

    get size(): number {
      return reads.size;
    },
  };
}
export type ContentAccessCache = ReturnType<typeof createContentAccessCache>;

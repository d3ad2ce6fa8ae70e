export interface RecentReadsOptions {
  /** How long a value read from the database vouches for itself here. */
  maxAgeMs: number;
  /** Most values held; the oldest entry makes room. */
  maxEntries: number;
  /**
   * Whether every event that ends a value reaches this process now: true with one process, or with
   * the Redis bus while it is connected; false while Redis is away (nothing is then kept or served).
   */
  hearsRevocations: () => boolean;
}

/**
 * Rows this process read from the database a moment ago and found to grant something (a session
 * alive, an image open to a viewer), so that a burst of requests does not ask the database the same
 * question each time (issue 16; docs/decisions.md › Prepared statements and sessions from memory).
 *
 * Callers keep only answers that say yes. What ends one (a revocation, a deletion) publishes an event
 * after it commits; `forget` drops the values it names, synchronously in that process and on the
 * others as the Redis bus delivers it. A read that was in flight while any such event was heard is
 * not kept (the epoch), so a row read just before a commit cannot outlive the event that followed it.
 */
export function createRecentReads<V>({ maxAgeMs, maxEntries, hearsRevocations }: RecentReadsOptions) {
  const entries = new Map<string, { value: V; at: number }>();
  let epoch = 0;

  return {
    /** The value if it was read within `maxAgeMs` and nothing ended it since. */
    get(key: string, now: number): V | null {
      if (!hearsRevocations()) return null;
      const entry = entries.get(key);
      if (!entry) return null;
      if (now - entry.at > maxAgeMs) {
        entries.delete(key);
        return null;
      }
      return entry.value;
    },

    /** Hand this to `keep` with what a database read returned; take it before the read starts. */
    epoch: () => epoch,

    /** Keeps a value read from the database, unless an event was heard since `readAt` began. */
    keep(key: string, value: V, readAt: number, now: number): void {
      if (readAt !== epoch || !hearsRevocations()) return;
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, at: now });
    },

    /** Changes a held value in place (its age stays). */
    update(key: string, change: (value: V) => V): void {
      const entry = entries.get(key);
      if (entry) entry.value = change(entry.value);
    },

    /** Drops the values `ends` names (every value with `null`: events may have been missed). */
    forget(ends: ((value: V) => boolean) | null): void {
      epoch++;
      if (ends === null) return entries.clear();
      for (const [key, entry] of entries) if (ends(entry.value)) entries.delete(key);
    },

    get size(): number {
      return entries.size;
    },
  };
}
export type RecentReads<V> = ReturnType<typeof createRecentReads<V>>;

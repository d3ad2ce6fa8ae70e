/**
 * Page 1 of a list read at start-up for the page's first opening (prefetch-view-images.ts), until the
 * page takes it as its opening read. Left to the page, each list is asked for only after the page's
 * code has arrived and rendered; any later mount, or another page of the list, reads again.
 * `key` names what the read was for (the image list's role), so that another key's page reads anew.
 */
export function createOpeningRead<K>() {
  let started: { key: K } | null = null;
  return {
    note(key: K): void {
      started = { key };
    },
    /** Whether the read for `key` was started and not yet taken (a pure read: a render may ask). */
    has(key: K): boolean {
      return started !== null && started.key === key;
    },
    take(): void {
      started = null;
    },
  };
}
export type OpeningRead<K> = ReturnType<typeof createOpeningRead<K>>;

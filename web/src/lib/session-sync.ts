import { STORAGE_KEY, readStoredSession } from './stored-session.ts';

/**
 * The tabs of one browser share one session (localStorage). When another tab logs out, or signs in
 * as someone else, this one follows at once: `ended` when the stored session is gone, `replaced`
 * when it is another one. A tab that went on with its own copy would go on showing the old user's
 * data, and its next change to the session would write the old token back over the new one; the
 * callers write nothing (store.ts). The stored session is read again when the event is handled, not
 * taken from the event: a tab the browser froze handles its events late, when the value they carry
 * may be stale (logged out, then signed in again). A tab's own writes raise no `storage` event in it.
 */
export function followOtherTabs(
  currentToken: () => string | null,
  on: { ended: () => void; replaced: () => void },
): () => void {
  // Pages rendered to HTML at build time (web/build/prerender.ts) have no window.
  if (typeof window === 'undefined') return () => {};
  const onStorage = (event: StorageEvent) => {
    // A null key: the other tab cleared the whole storage.
    if (event.key !== STORAGE_KEY && event.key !== null) return;
    if (event.storageArea && event.storageArea !== window.localStorage) return;
    const stored = readStoredSession()?.token ?? null;
    const mine = currentToken();
    if (stored === mine) return;
    if (stored === null) on.ended();
    else on.replaced();
  };
  window.addEventListener('storage', onStorage);
  return () => window.removeEventListener('storage', onStorage);
}

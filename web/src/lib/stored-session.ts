import type { SessionState } from './session.ts';

/**
 * Where redux-persist keeps the session (`persist:<key>`, each whitelisted slice a JSON string inside
 * the JSON object). No imports but types: the static pages' boot script (boot/static-page-boot.ts)
 * reads it before any of the app has loaded.
 */
export const PERSIST_KEY = 'root';
/** The session slice's name in the store and in the stored object (session.ts `sessionSlice`). */
export const SESSION_SLICE = 'session';

/** The localStorage key redux-persist writes the session under. */
export const STORAGE_KEY = `persist:${PERSIST_KEY}`;

/**
 * The session as redux-persist stored it, read synchronously: the app starts downloads with it before
 * the store has rehydrated, and the static pages decide with it whether to start the app at once.
 * Null when there is none or it cannot be read; the store's own rehydration stays the authority.
 */
export function readStoredSession(): SessionState | null {
  try {
    const raw = window.localStorage.getItem(STORAGE_KEY);
    const slice = raw ? (JSON.parse(raw) as Record<string, unknown>)[SESSION_SLICE] : undefined;
    const session = typeof slice === 'string' ? (JSON.parse(slice) as Partial<SessionState>) : null;
    return typeof session?.token === 'string' ? { token: session.token, user: session.user ?? null } : null;
  } catch {
    return null;
  }
}

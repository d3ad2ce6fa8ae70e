/**
 * Where a signed-out visitor was going (a mail's link such as /view-images?verify=…): kept in this
 * tab across the two sign-in steps (password, then code) and taken once after the code.
 */
const KEY = 'medshare.returnPath';
/** A sign-in takes minutes; an older wish is stale (the tab may have moved on). */
const MAX_AGE_MS = 30 * 60_000;

/** Only a path of this app: never another origin ('//host', '/\host') or a scheme. */
function isAppPath(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');
}

export function rememberReturnPath(path: string): void {
  if (!isAppPath(path)) return;
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify({ path, at: Date.now() }));
  } catch {
    // Storage may be off (private mode): the user then lands on their start page.
  }
}

/** The remembered path, once; null when there is none, it is stale or malformed. */
export function takeReturnPath(now = Date.now()): string | null {
  try {
    const raw = window.sessionStorage.getItem(KEY);
    window.sessionStorage.removeItem(KEY);
    if (!raw) return null;
    const { path, at } = JSON.parse(raw) as { path?: unknown; at?: unknown };
    if (typeof path !== 'string' || typeof at !== 'number' || now - at > MAX_AGE_MS || now < at) return null;
    return isAppPath(path) ? path : null;
  } catch {
    return null;
  }
}

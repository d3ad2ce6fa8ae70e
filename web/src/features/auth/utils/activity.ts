/**
 * When the user last did something (a key, a click, a touch, a wheel turn, a pointer that moved) in
 * any tab of this browser: the tabs share one session, so work in one keeps the others signed in.
 * Each tab keeps its own last time and writes it to localStorage at most every ACTIVITY_WRITE_MS; the
 * latest of the two counts, never later than now (a clock set back, or a value from the future, would
 * otherwise hold the logout off). Without storage (blocked), each tab counts its own.
 */
export const ACTIVITY_KEY = 'medshare:lastActivity';
export const ACTIVITY_WRITE_MS = 5_000;

let mine = 0;
let written = 0;

export function recordActivity(now = Date.now()): void {
  mine = now;
  if (now - written < ACTIVITY_WRITE_MS && written <= now) return;
  written = now;
  try {
    window.localStorage.setItem(ACTIVITY_KEY, String(now));
  } catch {
    // This tab's own time still counts.
  }
}

export function lastActivity(now = Date.now()): number {
  let shared = 0;
  try {
    shared = Number(window.localStorage.getItem(ACTIVITY_KEY)) || 0;
  } catch {
    // Only this tab's own.
  }
  return Math.min(now, Math.max(mine, shared));
}

/** For tests: forget this tab's times. */
export function resetActivity(): void {
  mine = 0;
  written = 0;
}

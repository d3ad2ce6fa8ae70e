/**
 * When the user last did something (a key, a click, a touch, a wheel turn, a pointer that moved) in
 * any tab of this browser: the tabs share one session, so work in one keeps the others signed in.
 * Each tab keeps its own last time and writes it to localStorage at most every ACTIVITY_WRITE_MS (the
 * last one of a burst written once that interval has passed); the latest of the two counts. A time
 * later than now (a clock set back, a value planted from the future) is ignored: it would hold the
 * logout off. Without storage (blocked), each tab counts its own.
 */
export const ACTIVITY_KEY = 'medshare:lastActivity';
export const ACTIVITY_WRITE_MS = 5_000;

let mine = 0;
let written = 0;
let trailing: ReturnType<typeof setTimeout> | undefined;

function write(at: number): void {
  written = at;
  try {
    window.localStorage.setItem(ACTIVITY_KEY, String(at));
  } catch {
    // This tab's own time still counts.
  }
}

export function recordActivity(now = Date.now()): void {
  mine = now;
  if (now - written >= ACTIVITY_WRITE_MS || written > now) {
    clearTimeout(trailing);
    trailing = undefined;
    write(now);
  } else {
    // The other tabs learn of this one too, at most ACTIVITY_WRITE_MS late.
    trailing ??= setTimeout(
      () => {
        trailing = undefined;
        write(mine);
      },
      ACTIVITY_WRITE_MS - (now - written),
    );
  }
}

export function lastActivity(now = Date.now()): number {
  let shared = 0;
  try {
    shared = Number(window.localStorage.getItem(ACTIVITY_KEY)) || 0;
  } catch {
    // Only this tab's own.
  }
  const known = (at: number) => (at <= now ? at : 0);
  return Math.max(known(mine), known(shared));
}

/** For tests: forget this tab's times. */
export function resetActivity(): void {
  clearTimeout(trailing);
  trailing = undefined;
  mine = 0;
  written = 0;
}

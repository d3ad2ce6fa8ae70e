/**
 * When the user last did something in any tab of this browser (a key, a click, a touch, a wheel turn,
 * a pointer that moved, an upload they started making progress): the tabs share one session, so work
 * in one keeps the others signed in (features/auth/components/session-watch.tsx).
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

/** This tab's own last activity (the session watch keeps the server's session alive for it). */
export function ownLastActivity(): number {
  return mine;
}

/** For tests: forget this tab's times. */
export function resetActivity(): void {
  clearTimeout(trailing);
  trailing = undefined;
  mine = 0;
  written = 0;
}

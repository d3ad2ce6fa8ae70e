/** The warning comes this long before the page's logout (`docs/security.md` › Identity and sessions). */
export const WARN_BEFORE_MS = 60_000;

/**
 * What the page knows of its session: the idle limit, and the absolute end on this browser's clock
 * (the server's remaining time counted from when the question was sent, so a clock that is off does
 * not move it).
 */
export type WatchedSession = { idleMs: number; endsAt: number };

export type SessionWatchState =
  { phase: 'active' } | { phase: 'warning'; secondsLeft: number } | { phase: 'over'; reason: 'idle' | 'ended' };

/**
 * Where a session stands at `now`, given the user's last activity: over at its absolute end, or once
 * the idle limit less `leadMs` has passed since that activity (the lead covers how far the server's
 * idle clock may run ahead of the page's); warned in the last WARN_BEFORE_MS before that (no warning
 * before the absolute end: staying cannot move it).
 */
export function sessionWatchState(
  now: number,
  lastActivity: number,
  session: WatchedSession,
  leadMs: number,
): SessionWatchState {
  const idleEnd = lastActivity + session.idleMs - leadMs;
  if (now >= session.endsAt) return { phase: 'over', reason: 'ended' };
  if (now >= idleEnd) return { phase: 'over', reason: 'idle' };
  if (idleEnd - now <= WARN_BEFORE_MS && idleEnd < session.endsAt)
    return { phase: 'warning', secondsLeft: Math.ceil((idleEnd - now) / 1000) };
  return { phase: 'active' };
}

/** `m:ss`, for the warning's countdown. */
export function countdown(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

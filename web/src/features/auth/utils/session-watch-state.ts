import type { SessionStatus } from '@medshare/contracts';

/** The warning comes this long before the idle limit (`docs/security.md` › Identity and sessions). */
export const WARN_BEFORE_MS = 60_000;

export type SessionWatchState =
  { phase: 'active' } | { phase: 'warning'; secondsLeft: number } | { phase: 'over'; reason: 'idle' | 'ended' };

/**
 * Where a session stands at `now`, given the user's last activity: over at its absolute end or once
 * the idle limit has passed since that activity, warned in the last WARN_BEFORE_MS before the idle
 * limit (no warning before the absolute end: staying cannot move it).
 */
export function sessionWatchState(now: number, lastActivity: number, status: SessionStatus): SessionWatchState {
  const end = Date.parse(status.expiresAt);
  const idleEnd = lastActivity + status.idleMinutes * 60_000;
  if (now >= end) return { phase: 'over', reason: 'ended' };
  if (now >= idleEnd) return { phase: 'over', reason: 'idle' };
  if (idleEnd - now <= WARN_BEFORE_MS && idleEnd < end)
    return { phase: 'warning', secondsLeft: Math.ceil((idleEnd - now) / 1000) };
  return { phase: 'active' };
}

/** `m:ss`, for the warning's countdown. */
export function countdown(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

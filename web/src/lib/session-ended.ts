import { SESSION_ENDED_KEY } from '../config/constants';

/**
 * Why the last session of this tab ended without its user logging out, for the login page to say:
 * 'idle' when the app signed out after the idle limit (features/auth/components/session-watch.tsx),
 * '1' for every other end (the server said the session is gone, another tab logged out). Kept in
 * sessionStorage: it is this tab's, and read once. No imports but constants: the static pages' boot
 * script reads it before the app has loaded.
 */
export type SessionEndReason = 'idle' | 'ended';

export function markSessionEnded(reason: SessionEndReason = 'ended'): void {
  try {
    window.sessionStorage.setItem(SESSION_ENDED_KEY, reason === 'idle' ? 'idle' : '1');
  } catch {
    // Without storage the login page just does not explain why it is shown.
  }
}

export function readSessionEnded(): SessionEndReason | null {
  try {
    const value = window.sessionStorage.getItem(SESSION_ENDED_KEY);
    return value === null ? null : value === 'idle' ? 'idle' : 'ended';
  } catch {
    return null;
  }
}

export function clearSessionEnded(): void {
  try {
    window.sessionStorage.removeItem(SESSION_ENDED_KEY);
  } catch {
    // Nothing to clear.
  }
}

import { ApiPaths } from '@medshare/contracts/paths';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, endSession } from '../../../lib/api-client';
import { selectToken } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { useGetSessionStatusQuery } from '../api/session-status';
import { lastActivity, ownLastActivity, recordActivity } from '../../../lib/user-activity';
import { type SessionWatchState, type WatchedSession, sessionWatchState } from '../utils/session-watch-state';

const loadIdleWarning = () => import('./idle-warning');
const IdleWarning = lazy(loadIdleWarning);

/**
 * What counts as the user being there. Not `scroll`: the page scrolls itself (a chat thread follows
 * its new messages), and a user's own scrolling comes with a wheel, key or touch.
 */
const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart'] as const;
/**
 * An active user's session is kept alive on the server at most this often (on the first tick after
 * this tab's own activity, once this long has passed since the last question); the server notes that
 * use at once (auth.service.ts `sessionStatus`), so its idle clock runs at most this far ahead of the
 * page's, and the page logs out this much before its idle limit: never after the server has.
 */
export const KEEP_ALIVE_MS = 30_000;
/** The first question waits until the page has drawn and read what it needs. */
export const FIRST_ASK_MS = 2_000;
/** A question that failed (the network, a restart) is asked again this often. */
export const RETRY_MS = 15_000;
const TICK_MS = 1_000;
/** An idle logout waits this long at most for the server to end the session, then ends it here anyway. */
const LOGOUT_WAIT_MS = 3_000;

/**
 * Automatic logout (`docs/security.md` › Identity and sessions): the server ends a session unused for
 * the idle limit, but a screen left open would go on showing what it had read. This watch logs out on
 * the screen too, once the user has done nothing for the limit in any tab (lib/user-activity.ts), after a
 * minute's warning over a blurred page; at the session's absolute end it leaves at once. An active
 * user's session is kept alive on the server while they work on data the page already has (a long
 * report, a DICOM stack).
 */
export function SessionWatch({ onLogout }: { onLogout: () => void }) {
  const token = useAppSelector(selectToken);
  const [asking, setAsking] = useState(false);
  const {
    data: status,
    fulfilledTimeStamp,
    isError,
    startedTimeStamp,
    refetch,
  } = useGetSessionStatusQuery(undefined, { skip: !token || !asking, refetchOnMountOrArgChange: true });
  const [state, setState] = useState<SessionWatchState>({ phase: 'active' });
  const warned = useRef(false);
  const leaving = useRef(false);
  const lastAsked = useRef(0);

  // The absolute end on this browser's clock: the server's remaining time, counted from when the
  // question was sent (the server measured it later, so the page never ends after it). While the next
  // question is out, from the last answer's arrival: one round trip late at most.
  const sentAt = Math.min(startedTimeStamp ?? Infinity, fulfilledTimeStamp ?? Infinity);
  const session = useMemo<WatchedSession | null>(
    () =>
      status && Number.isFinite(sentAt)
        ? { idleMs: status.idleMinutes * 60_000, endsAt: sentAt + status.expiresInMs }
        : null,
    [status, sentAt],
  );

  useEffect(() => {
    if (!token) return;
    recordActivity();
    const timer = setTimeout(() => {
      lastAsked.current = Date.now();
      setAsking(true);
    }, FIRST_ASK_MS);
    return () => clearTimeout(timer);
  }, [token]);

  // Without an answer the page cannot watch: ask again until one comes (the server still ends the session).
  useEffect(() => {
    if (!isError) return;
    const timer = setTimeout(() => {
      lastAsked.current = Date.now();
      void refetch();
    }, RETRY_MS);
    return () => clearTimeout(timer);
  }, [isError, startedTimeStamp, refetch]);

  /** Asks again when this tab's user (or an upload they started) has been active since the last question. */
  const keepAlive = useCallback(
    (now: number) => {
      if (!session || ownLastActivity() <= lastAsked.current || now - lastAsked.current < KEEP_ALIVE_MS) return;
      lastAsked.current = now;
      void refetch();
    },
    [session, refetch],
  );

  useEffect(() => {
    if (!token) return;
    const onActivity = (event: Event) => {
      // While the warning shows, only its answer keeps the session: a bumped mouse does not.
      if (warned.current) return;
      // Chromium sends a pointermove that did not move when the page's layout shifts under a resting pointer.
      if (event.type === 'pointermove') {
        const { movementX, movementY } = event as PointerEvent;
        if (movementX === 0 && movementY === 0) return;
      }
      const now = Date.now();
      recordActivity(now);
      keepAlive(now);
    };
    for (const type of ACTIVITY_EVENTS) window.addEventListener(type, onActivity, { capture: true, passive: true });
    return () => {
      for (const type of ACTIVITY_EVENTS) window.removeEventListener(type, onActivity, { capture: true });
    };
  }, [token, keepAlive]);

  useEffect(() => {
    if (!token || !session) return;
    // Fetched now, so that the warning shows at its minute even if the network has gone by then.
    void loadIdleWarning();
    const tick = () => {
      if (leaving.current) return;
      const now = Date.now();
      // Activity without an event of ours (an upload's progress) keeps the server's session alive too.
      if (!warned.current) keepAlive(now);
      const next = sessionWatchState(now, lastActivity(now), session, KEEP_ALIVE_MS);
      warned.current = next.phase === 'warning';
      if (next.phase === 'over') {
        leaving.current = true;
        void leave(next.reason);
      }
      // The same state keeps its object: a tick that changes nothing renders nothing.
      setState((previous) => (JSON.stringify(previous) === JSON.stringify(next) ? previous : next));
    };
    tick();
    // Timers of a hidden tab run late, and a machine that slept runs none: look again when it is seen.
    const timer = setInterval(tick, TICK_MS);
    document.addEventListener('visibilitychange', tick);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [token, session, keepAlive]);

  const stay = useCallback(() => {
    warned.current = false;
    setState({ phase: 'active' });
    const now = Date.now();
    recordActivity(now);
    keepAlive(now);
  }, [keepAlive]);

  // Leaving (up to LOGOUT_WAIT_MS for the server's answer): nothing of the page shows meanwhile.
  if (state.phase === 'over')
    return (
      <div data-testid="session-over" style={{ position: 'fixed', inset: 0, zIndex: 2000, background: '#0f172a' }} />
    );
  if (state.phase !== 'warning') return null;
  return (
    <Suspense fallback={null}>
      <IdleWarning secondsLeft={state.secondsLeft} onStay={stay} onLogout={onLogout} />
    </Suspense>
  );
}

/** Ends the session: on the server too when it went idle (it would only notice at the next request). */
async function leave(reason: 'idle' | 'ended'): Promise<void> {
  if (reason === 'idle') {
    const loggedOut = api.post(ApiPaths.logout, undefined, { handleSessionExpiry: false }).catch(() => undefined);
    await Promise.race([loggedOut, new Promise((resolve) => setTimeout(resolve, LOGOUT_WAIT_MS))]);
  }
  await endSession(reason);
}

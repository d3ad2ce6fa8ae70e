import { ApiPaths } from '@medshare/contracts/paths';
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { api, endSession } from '../../../lib/api-client';
import { selectToken } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { useGetSessionStatusQuery } from '../api/session-status';
import { lastActivity, recordActivity } from '../utils/activity';
import { type SessionWatchState, sessionWatchState } from '../utils/session-watch-state';

const loadIdleWarning = () => import('./idle-warning');
const IdleWarning = lazy(loadIdleWarning);

/** What counts as the user being there. */
const ACTIVITY_EVENTS = ['pointerdown', 'pointermove', 'keydown', 'wheel', 'touchstart', 'scroll'] as const;
/**
 * An active user's session is kept alive on the server at most this often. The server notes a
 * session's use at most once a minute, so its idle clock runs at most ~90 s ahead of this one's.
 */
export const KEEP_ALIVE_MS = 30_000;
/** The first question waits until the page has drawn and read what it needs. */
export const FIRST_ASK_MS = 2_000;
const TICK_MS = 1_000;
/** An idle sign-out waits this long at most for the server to end the session, then ends it here anyway. */
const LOGOUT_WAIT_MS = 3_000;

/**
 * Automatic logout (`docs/security.md` › Identity and sessions): the server ends a session unused for the idle
 * limit, but a screen left open would go on showing what it had read. This watch logs out on the
 * screen too, once the user has done nothing for the limit in any tab (activity.ts), after a minute's
 * warning; at the session's absolute end it leaves at once. An active user's session is kept alive
 * on the server while they work on data the page already has (a long report, a DICOM stack).
 */
export function SessionWatch({ onLogout }: { onLogout: () => void }) {
  const token = useAppSelector(selectToken);
  const [asking, setAsking] = useState(false);
  const { data: status, refetch } = useGetSessionStatusQuery(undefined, {
    skip: !token || !asking,
    refetchOnMountOrArgChange: true,
  });
  const [state, setState] = useState<SessionWatchState>({ phase: 'active' });
  const warned = useRef(false);
  const lastAsked = useRef(0);

  useEffect(() => {
    if (!token) return;
    recordActivity();
    const timer = setTimeout(() => {
      lastAsked.current = Date.now();
      setAsking(true);
    }, FIRST_ASK_MS);
    return () => clearTimeout(timer);
  }, [token]);

  const active = useCallback(
    (now: number) => {
      recordActivity(now);
      if (!status || now - lastAsked.current < KEEP_ALIVE_MS) return;
      lastAsked.current = now;
      void refetch();
    },
    [status, refetch],
  );

  useEffect(() => {
    if (!token) return;
    // While the warning shows, only its button keeps the session: a bumped mouse does not.
    const onActivity = () => {
      if (!warned.current) active(Date.now());
    };
    for (const type of ACTIVITY_EVENTS) window.addEventListener(type, onActivity, { capture: true, passive: true });
    return () => {
      for (const type of ACTIVITY_EVENTS) window.removeEventListener(type, onActivity, { capture: true });
    };
  }, [token, active]);

  useEffect(() => {
    if (!token || !status) return;
    // Fetched now, so that the warning shows at its minute even if the network has gone by then.
    void loadIdleWarning();
    let over = false;
    const tick = () => {
      if (over) return;
      const next = sessionWatchState(Date.now(), lastActivity(), status);
      warned.current = next.phase === 'warning';
      if (next.phase === 'over') {
        over = true;
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
  }, [token, status]);

  const stay = useCallback(() => {
    warned.current = false;
    setState({ phase: 'active' });
    active(Date.now());
  }, [active]);

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

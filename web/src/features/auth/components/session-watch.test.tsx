import type { SessionStatus } from '@medshare/contracts';
import { act, fireEvent, screen } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as navigation from '../../../lib/navigation';
import { setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, ok } from '../../../testing/handlers';
import { recordRequests, requestsTo, server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
import { ACTIVITY_KEY, recordActivity, resetActivity } from '../../../lib/user-activity';
import { FIRST_ASK_MS, KEEP_ALIVE_MS, RETRY_MS, SessionWatch } from './session-watch';

const MINUTE = 60_000;
const START = Date.parse('2026-12-07T10:00:00Z');
/** With the server's 5-minute idle limit, the page logs out this long after the last activity… */
const LOGOUT_AFTER = 5 * MINUTE - KEEP_ALIVE_MS;
/** …and warns a minute before. */
const WARN_AFTER = LOGOUT_AFTER - MINUTE;

/**
 * The server's answer: a 5-minute idle limit and the session's end `endsInMs` after START. `expiresAt`
 * is said in the server's clock, here a day ahead of the browser's: the page counts `expiresInMs`.
 */
function sessionAnswers(endsInMs = 12 * 60 * MINUTE) {
  server.use(
    api.get<SessionStatus>('/auth/session', () =>
      ok({
        idleMinutes: 5,
        expiresAt: new Date(START + 24 * 60 * MINUTE + endsInMs).toISOString(),
        expiresInMs: START + endsInMs - Date.now(),
      }),
    ),
    api.post<null>('/auth/logout', () => ok(null, 'Logged out successfully')),
  );
}

const later = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
/** The warning's chunk loads for real (not on the fake clock): wait for it without moving the clock. */
const shown = (role: string, name?: string) =>
  vi.waitFor(() => screen.getByRole(role, name ? { name } : {}), { interval: 5 });

describe('SessionWatch (automatic logout)', () => {
  let hardNavigate: ReturnType<typeof vi.spyOn>;
  let onLogout: ReturnType<typeof vi.fn<() => void>>;

  /** `steps` times: `act`, then 10 s. */
  async function activeFor(steps: number, act: () => void) {
    for (let i = 0; i < steps; i++) {
      act();
      await later(10_000);
    }
  }

  /** No warning, no logout, and between `least` and `most` questions to the server. */
  function expectStillSignedIn(requests: Request[], [least, most]: [number, number]) {
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(hardNavigate).not.toHaveBeenCalled();
    const asks = requestsTo(requests, 'GET', '/auth/session').length;
    expect(asks).toBeGreaterThanOrEqual(least);
    expect(asks).toBeLessThanOrEqual(most);
  }

  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'requestAnimationFrame'],
    });
    vi.setSystemTime(START);
    resetActivity();
    hardNavigate = vi.spyOn(navigation, 'hardNavigate').mockImplementation(() => {});
    vi.spyOn(navigation, 'currentPath').mockReturnValue('/view-images');
    store.dispatch(setUser({ user: makeUser(), token: 'tok' }));
    onLogout = vi.fn<() => void>();
  });

  afterEach(() => {
    vi.useRealTimers();
    resetActivity();
  });

  it('warns a minute ahead, counts down over a covered page, then logs out on the server and here', async () => {
    sessionAnswers();
    const requests = recordRequests();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    await vi.waitFor(() => expect(requestsTo(requests, 'GET', '/auth/session')).toHaveLength(1));

    await later(WARN_AFTER - FIRST_ASK_MS - 1_100);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await later(1_000);
    const dialog = await shown('dialog', 'Are you still there?');
    // The page looks once a second, from whenever the answer came: a second either way.
    expect(dialog).toHaveTextContent(/logged out in (1:00|0:59)/);
    await later(30_000);
    expect(dialog).toHaveTextContent(/logged out in 0:(29|30|31)/);
    // A bumped mouse is not an answer: only the dialog's buttons are.
    fireEvent.pointerMove(document.body);
    await later(30_000);

    // Nothing of the page shows while the server is asked to end the session.
    expect(screen.getByTestId('session-over')).toBeInTheDocument();
    await vi.waitFor(() => expect(hardNavigate).toHaveBeenCalledWith('/login'));
    expect(requestsTo(requests, 'POST', '/auth/logout')).toHaveLength(1);
    expect(requestsTo(requests, 'POST', '/auth/logout')[0]!.headers.get('Authorization')).toBe('Bearer tok');
    expect(store.getState().session.token).toBeNull();
    expect(window.sessionStorage.getItem('medshare:sessionEnded')).toBe('idle');
  });

  it('stays while the user works, and keeps the server session alive at most every 30 s', async () => {
    sessionAnswers();
    const requests = recordRequests();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    // Twenty minutes of work on what the page already has: a key or a wheel every 10 s. Questions
    // every 30 to 31 s (the next look after 30 s): 38 to 41.
    await activeFor(120, () => fireEvent.keyDown(document.body, { key: 'ArrowDown' }));
    expectStillSignedIn(requests, [37, 41]);
  });

  it('does not take the page scrolling itself, or a pointer that did not move, for the user', async () => {
    sessionAnswers();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    for (let i = 0; i < WARN_AFTER / 10_000; i++) {
      // A chat thread following its new messages; a layout shift under a resting pointer.
      fireEvent.scroll(window);
      window.dispatchEvent(Object.assign(new Event('pointermove'), { movementX: 0, movementY: 0 }));
      await later(10_000);
    }
    expect(await shown('dialog', 'Are you still there?')).toBeInTheDocument();
  });

  it('an upload the user started keeps them signed in, on the server too, though nobody touches the page', async () => {
    sessionAnswers();
    const requests = recordRequests();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    // Forty minutes of a study import, its progress every 10 s: questions every 30 to 31 s, 77 to 81.
    await activeFor(240, () => recordActivity());
    expectStillSignedIn(requests, [76, 81]);
  });

  it("counts the user's activity in another tab of the browser", async () => {
    sessionAnswers();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    await later(2 * MINUTE);
    window.localStorage.setItem(ACTIVITY_KEY, String(Date.now()));
    await later(WARN_AFTER - 10_000);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await later(11_000);
    expect(await shown('dialog')).toBeInTheDocument();
    // The other tab is used again while this one warns: the warning goes.
    window.localStorage.setItem(ACTIVITY_KEY, String(Date.now()));
    await later(1_000);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(hardNavigate).not.toHaveBeenCalled();
  });

  it('a time of activity from the future does not hold the logout off', async () => {
    sessionAnswers();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    // Planted (or left by a clock since set back) after this tab's own last write.
    window.localStorage.setItem(ACTIVITY_KEY, String(START + 24 * 60 * MINUTE));
    await later(WARN_AFTER);
    expect(await shown('dialog')).toBeInTheDocument();
  });

  it("tells the other tabs of the last of a burst of activity, not only of the burst's first", async () => {
    sessionAnswers();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    await later(10_000);
    fireEvent.keyDown(document.body, { key: 'a' });
    const first = Number(window.localStorage.getItem(ACTIVITY_KEY));
    await later(1_000);
    fireEvent.keyDown(document.body, { key: 'b' });
    const last = Date.now();
    expect(Number(window.localStorage.getItem(ACTIVITY_KEY))).toBe(first);
    await later(5_000);
    expect(Number(window.localStorage.getItem(ACTIVITY_KEY))).toBe(last);
  });

  it('Stay logged in closes the warning and asks the server again; Log out logs out', async () => {
    sessionAnswers();
    const requests = recordRequests();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    await later(WARN_AFTER);
    fireEvent.click(await shown('button', 'Stay logged in'));
    await later(100);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(requestsTo(requests, 'GET', '/auth/session')).toHaveLength(2);
    await later(WARN_AFTER - 200);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await later(1_000);
    fireEvent.click(await shown('button', 'Log out'));
    expect(onLogout).toHaveBeenCalledTimes(1);
  });

  it('asks again after a failed question, and watches once answered', async () => {
    let failing = true;
    sessionAnswers();
    server.use(api.get('/auth/session', () => (failing ? HttpResponse.error() : undefined)));
    const requests = recordRequests();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    // The failure reaches the page with the store's next notification (a timer of its own).
    await later(FIRST_ASK_MS + 1_000);
    expect(requestsTo(requests, 'GET', '/auth/session')).toHaveLength(1);
    // React renders what the store says in tasks of its own, outside the fake clock: a second's margin.
    await later(RETRY_MS + 1_000);
    expect(requestsTo(requests, 'GET', '/auth/session')).toHaveLength(2);
    failing = false;
    await later(RETRY_MS + 1_000);
    expect(requestsTo(requests, 'GET', '/auth/session')).toHaveLength(3);
    await later(WARN_AFTER);
    expect(await shown('dialog')).toBeInTheDocument();
  });

  it("leaves at the session's absolute end without a warning, whatever the browser's clock says of it", async () => {
    sessionAnswers(3 * MINUTE);
    const requests = recordRequests();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    for (let i = 0; i < 17; i++) {
      fireEvent.pointerDown(document.body);
      await later(10_000);
    }
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(hardNavigate).not.toHaveBeenCalled();
    await later(10_000);
    await vi.waitFor(() => expect(hardNavigate).toHaveBeenCalledWith('/login'));
    expect(requestsTo(requests, 'POST', '/auth/logout')).toHaveLength(0);
    expect(window.sessionStorage.getItem('medshare:sessionEnded')).toBe('1');
  });
});

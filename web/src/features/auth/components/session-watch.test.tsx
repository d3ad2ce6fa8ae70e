import type { SessionStatus } from '@medshare/contracts';
import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as navigation from '../../../lib/navigation';
import { setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, ok } from '../../../testing/handlers';
import { recordRequests, requestsTo, server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
import { ACTIVITY_KEY, resetActivity } from '../utils/activity';
import { FIRST_ASK_MS, KEEP_ALIVE_MS, SessionWatch } from './session-watch';

const MINUTE = 60_000;
const START = Date.parse('2026-12-07T10:00:00Z');

/** The server's answer: a 5-minute idle limit, the session's end `endsInMs` after START. */
function sessionAnswers(endsInMs = 12 * 60 * MINUTE) {
  const status: SessionStatus = { idleMinutes: 5, expiresAt: new Date(START + endsInMs).toISOString() };
  server.use(
    api.get<SessionStatus>('/auth/session', () => ok(status)),
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

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
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

  it('warns a minute before the idle limit, counts down, then logs out on the server and here', async () => {
    sessionAnswers();
    const requests = recordRequests();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    expect(requestsTo(requests, 'GET', '/auth/session')).toHaveLength(1);

    await later(4 * MINUTE - FIRST_ASK_MS - 1_000);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await later(1_000);
    const dialog = await shown('dialog', 'Are you still there?');
    expect(dialog).toHaveTextContent('logged out in 1:00');
    await later(30_000);
    expect(dialog).toHaveTextContent('logged out in 0:30');
    // A bumped mouse is not an answer: only the dialog's buttons are.
    fireEvent.pointerMove(document.body);
    await later(31_000);

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
    // Twenty minutes of work on what the page already has: a key or a wheel every 10 s.
    for (let i = 0; i < 120; i++) {
      fireEvent.keyDown(document.body, { key: 'ArrowDown' });
      await later(10_000);
    }
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(hardNavigate).not.toHaveBeenCalled();
    const asks = requestsTo(requests, 'GET', '/auth/session').length;
    expect(asks).toBeGreaterThanOrEqual(20 * 2 - 1);
    expect(asks).toBeLessThanOrEqual(20 * 2 + 1);
    expect(KEEP_ALIVE_MS).toBe(30_000);
  });

  it("counts the user's activity in another tab of the browser", async () => {
    sessionAnswers();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    await later(3 * MINUTE);
    window.localStorage.setItem(ACTIVITY_KEY, String(Date.now()));
    await later(3 * MINUTE);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await later(MINUTE);
    expect(await shown('dialog')).toBeInTheDocument();
    // The other tab is used again while this one warns: the warning goes.
    window.localStorage.setItem(ACTIVITY_KEY, String(Date.now()));
    await later(1_000);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(hardNavigate).not.toHaveBeenCalled();
  });

  it('Stay logged in closes the warning and asks the server again; Log out logs out', async () => {
    sessionAnswers();
    const requests = recordRequests();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    await later(4 * MINUTE);
    fireEvent.click(await shown('button', 'Stay logged in'));
    await later(100);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(requestsTo(requests, 'GET', '/auth/session')).toHaveLength(2);
    await later(4 * MINUTE - 200);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await later(1_000);
    fireEvent.click(await shown('button', 'Log out'));
    expect(onLogout).toHaveBeenCalledTimes(1);
  });

  it("leaves at the session's absolute end without a warning", async () => {
    sessionAnswers(3 * MINUTE);
    const requests = recordRequests();
    renderWithProviders(<SessionWatch onLogout={onLogout} />);
    await later(FIRST_ASK_MS + 100);
    for (let i = 0; i < 17; i++) {
      fireEvent.pointerDown(document.body);
      await later(10_000);
    }
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await later(10_000);
    await vi.waitFor(() => expect(hardNavigate).toHaveBeenCalledWith('/login'));
    expect(requestsTo(requests, 'POST', '/auth/logout')).toHaveLength(0);
    expect(window.sessionStorage.getItem('medshare:sessionEnded')).toBe('1');
  });
});

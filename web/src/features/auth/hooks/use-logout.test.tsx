import { AuthMessages } from '@medshare/contracts';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { jsonResponse, makeUser, renderRoutes } from '../../../testing/test-utils';
import { useLogout } from './use-logout';

function LogoutButton() {
  const { logout } = useLogout();
  return <button onClick={() => void logout()}>Logout</button>;
}

const routes = [
  { path: '/dashboard', element: <LogoutButton /> },
  { path: '/login', element: <h1>Login page</h1> },
];

describe('useLogout', () => {
  afterEach(() => {
    store.dispatch(clearSession());
  });

  it('logs out on the server, clears the session and goes to /login', async () => {
    const success = vi.spyOn(toast, 'success');
    const fetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValue(jsonResponse(200, { success: true, message: AuthMessages.loggedOut, data: null }));
    vi.stubGlobal('fetch', fetchMock);
    store.dispatch(setUser({ user: makeUser(), token: 'tok' }));
    renderRoutes(routes, '/dashboard');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('heading', { name: 'Login page' })).toBeInTheDocument();
    expect(new Headers(fetchMock.mock.calls[0]![1]?.headers).get('Authorization')).toBe('Bearer tok');
    expect(success).toHaveBeenCalledWith('Logged out successfully');
    expect(store.getState().session).toEqual({ token: null, user: null });
  });

  it('clears the session and goes to /login even when the logout call fails', async () => {
    const error = vi.spyOn(toast, 'error');
    vi.stubGlobal('fetch', vi.fn<typeof fetch>().mockRejectedValue(new TypeError('Failed to fetch')));
    store.dispatch(setUser({ user: makeUser(), token: 'tok' }));
    renderRoutes(routes, '/dashboard');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('heading', { name: 'Login page' })).toBeInTheDocument();
    expect(error).toHaveBeenCalledWith('Logout failed. Please try again.');
    expect(store.getState().session.token).toBeNull();
  });
});

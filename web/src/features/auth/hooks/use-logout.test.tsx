import { AuthMessages } from '@medshare/contracts';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, ok } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { makeUser, renderRoutes } from '../../../testing/test-utils';
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
    let authorization: string | null = null;
    server.use(
      api.post<null>('/auth/logout', ({ request }) => {
        authorization = request.headers.get('Authorization');
        return ok(null, AuthMessages.loggedOut);
      }),
    );
    store.dispatch(setUser({ user: makeUser(), token: 'tok' }));
    renderRoutes(routes, '/dashboard');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('heading', { name: 'Login page' })).toBeInTheDocument();
    expect(authorization).toBe('Bearer tok');
    expect(success).toHaveBeenCalledWith('Logged out successfully');
    expect(store.getState().session).toEqual({ token: null, user: null });
  });

  it('clears the session and goes to /login even when the logout call fails', async () => {
    const error = vi.spyOn(toast, 'error');
    server.use(api.post('/auth/logout', () => HttpResponse.error()));
    store.dispatch(setUser({ user: makeUser(), token: 'tok' }));
    renderRoutes(routes, '/dashboard');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('heading', { name: 'Login page' })).toBeInTheDocument();
    expect(error).toHaveBeenCalledWith('Logout failed. Please try again.');
    expect(store.getState().session.token).toBeNull();
  });
});

import { act, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { takeReturnPath } from '../lib/return-path';
import { clearSession, setUser } from '../lib/session';
import { store } from '../lib/store';
import { makeUser, renderRoutes } from '../testing/test-utils';
import { RequireAuth } from './require-auth';

const routes = [
  { path: '/login', element: <h1>Login page</h1> },
  {
    element: <RequireAuth />,
    children: [{ path: '/view-images', element: <h1>Images page</h1> }],
  },
];

describe('RequireAuth', () => {
  afterEach(() => {
    store.dispatch(clearSession());
    window.sessionStorage.clear();
  });

  it('redirects to /login without a token', async () => {
    const { router } = renderRoutes(routes, '/view-images');
    expect(await screen.findByRole('heading', { name: 'Login page' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('remembers where a signed-out visitor was going, query included, for after the sign-in', async () => {
    const { router } = renderRoutes(routes, '/view-images?verify=66666666-6666-4666-8666-666666666666');
    expect(await screen.findByRole('heading', { name: 'Login page' })).toBeInTheDocument();
    expect(router.state.location.state).toEqual({ from: '/view-images?verify=66666666-6666-4666-8666-666666666666' });
    expect(takeReturnPath()).toBe('/view-images?verify=66666666-6666-4666-8666-666666666666');
  });

  it('does not remember the page when the session ends on it (logout): the next person starts afresh', async () => {
    store.dispatch(setUser({ user: makeUser(), token: 'token-123' }));
    renderRoutes(routes, '/view-images');
    expect(await screen.findByRole('heading', { name: 'Images page' })).toBeInTheDocument();
    act(() => {
      store.dispatch(clearSession());
    });
    expect(await screen.findByRole('heading', { name: 'Login page' })).toBeInTheDocument();
    expect(takeReturnPath()).toBeNull();
  });

  it('shows the protected page with a token', async () => {
    store.dispatch(setUser({ user: makeUser(), token: 'token-123' }));
    renderRoutes(routes, '/view-images');
    expect(await screen.findByRole('heading', { name: 'Images page' })).toBeInTheDocument();
  });
});

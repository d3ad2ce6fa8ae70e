import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
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
  });

  it('redirects to /login without a token', async () => {
    const { router } = renderRoutes(routes, '/view-images');
    expect(await screen.findByRole('heading', { name: 'Login page' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('shows the protected page with a token', async () => {
    store.dispatch(setUser({ user: makeUser(), token: 'token-123' }));
    renderRoutes(routes, '/view-images');
    expect(await screen.findByRole('heading', { name: 'Images page' })).toBeInTheDocument();
  });
});

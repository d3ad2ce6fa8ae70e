import type { RoleName } from '@medshare/contracts';
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSession, setUser } from '../lib/session';
import { store } from '../lib/store';
import { makeUser, renderRoutes } from '../testing/test-utils';
import { SignedOutOnly } from './signed-out-only';

const routes = [
  {
    path: '/login',
    element: (
      <SignedOutOnly>
        <h1>Login form</h1>
      </SignedOutOnly>
    ),
  },
  { path: '/view-images', element: <h1>Images page</h1> },
  { path: '/dashboard', element: <h1>Dashboard page</h1> },
];

describe('SignedOutOnly', () => {
  afterEach(() => {
    store.dispatch(clearSession());
  });

  it('shows the login form to someone not signed in', () => {
    renderRoutes(routes, '/login');
    expect(screen.getByRole('heading', { name: 'Login form' })).toBeInTheDocument();
  });

  it.each([
    ['patient', '/view-images', 'Images page'],
    ['healthProvider', '/dashboard', 'Dashboard page'],
    ['admin', '/dashboard', 'Dashboard page'],
  ] as const)('sends a signed-in %s from /login to %s', async (role: RoleName, path, heading) => {
    store.dispatch(setUser({ user: makeUser({ role }), token: 'token-123' }));
    const { router } = renderRoutes(routes, '/login');
    expect(await screen.findByRole('heading', { name: heading })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(path);
  });
});

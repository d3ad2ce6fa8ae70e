import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearSession, setUser } from '../../lib/session';
import { store } from '../../lib/store';
import { makeUser, renderWithProviders } from '../../testing/test-utils';
import { LogoutContext } from './logout-context';
import { SiteHeader } from './site-header';

describe('SiteHeader', () => {
  afterEach(() => {
    store.dispatch(clearSession());
  });

  it('offers Login and Register to a visitor', () => {
    renderWithProviders(<SiteHeader />);
    expect(screen.getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/login');
    expect(screen.getByRole('link', { name: 'Register' })).toHaveAttribute('href', '/register');
  });

  it('offers a signed-in patient View Images and Logout instead', async () => {
    const logout = vi.fn();
    store.dispatch(setUser({ user: makeUser({ role: 'patient' }), token: 'token-123' }));
    renderWithProviders(
      <LogoutContext value={{ logout, loggingOut: false }}>
        <SiteHeader />
      </LogoutContext>,
    );
    expect(screen.getByRole('link', { name: 'View Images' })).toHaveAttribute('href', '/view-images');
    expect(screen.queryByRole('link', { name: 'Login' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Register' })).not.toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Logout' }));
    expect(logout).toHaveBeenCalledOnce();
  });

  it('offers a signed-in provider or admin the Dashboard', () => {
    store.dispatch(setUser({ user: makeUser({ role: 'healthProvider' }), token: 'token-123' }));
    renderWithProviders(<SiteHeader />);
    expect(screen.getByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', '/dashboard');
  });
});

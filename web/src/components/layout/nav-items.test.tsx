import type { RoleName } from '@medshare/contracts';
import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { makeUser } from '../../testing/test-utils';
import { AppShell } from './app-shell';
import { getNavItems } from './nav-items';

const labels = (role: RoleName | undefined, variant: 'desktop' | 'mobile') =>
  getNavItems(role, variant).map((item) => item.label);

describe('side menu items', () => {
  it('shows an admin every item, the admin dashboard included', () => {
    expect(labels('admin', 'desktop')).toEqual([
      'Dashboard',
      'Admin Dashboard',
      'Profile',
      'Upload Image',
      'View Images',
      'Messages',
      'Audit Logs',
      'Roles',
      'Settings',
      'Home',
    ]);
  });

  it('shows a health provider the dashboard, uploads and audit logs but not roles or settings', () => {
    expect(labels('healthProvider', 'desktop')).toEqual([
      'Dashboard',
      'Profile',
      'Upload Image',
      'View Images',
      'Messages',
      'Audit Logs',
      'Home',
    ]);
  });

  it('hides Dashboard, Upload Image, Audit Logs, Roles and Settings from a patient on desktop', () => {
    expect(labels('patient', 'desktop')).toEqual(['Profile', 'View Images', 'Messages', 'Home']);
  });

  it('always shows Dashboard in the mobile drawer, also to a patient', () => {
    expect(labels('patient', 'mobile')).toEqual(['Dashboard', 'Profile', 'View Images', 'Messages', 'Home']);
  });
});

describe('AppShell', () => {
  function renderShell(role: RoleName, desktop: boolean) {
    vi.stubGlobal(
      'matchMedia',
      vi.fn((query: string) => ({
        matches: desktop,
        media: query,
        addEventListener: () => {},
        removeEventListener: () => {},
        addListener: () => {},
        removeListener: () => {},
        onchange: null,
        dispatchEvent: () => false,
      })),
    );
    render(
      <MemoryRouter initialEntries={['/profile']}>
        <AppShell user={makeUser({ role })} onLogout={() => {}}>
          <p>page</p>
        </AppShell>
      </MemoryRouter>,
    );
  }

  it('renders the permanent menu for a patient without staff items', () => {
    renderShell('patient', true);
    const menu = within(screen.getByRole('navigation', { name: 'Main menu' }));
    expect(menu.getByRole('link', { name: 'View Images' })).toBeInTheDocument();
    expect(menu.queryByRole('link', { name: 'Upload Image' })).not.toBeInTheDocument();
    expect(menu.queryByRole('link', { name: 'Dashboard' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Open menu' })).not.toBeInTheDocument();
  });

  it('renders the admin-only items for an admin', () => {
    renderShell('admin', true);
    const menu = within(screen.getByRole('navigation', { name: 'Main menu' }));
    expect(menu.getByRole('link', { name: 'Roles' })).toHaveAttribute('href', '/roles-permissions');
    expect(menu.getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/appsettings');
  });

  it('offers a hamburger button below 1024 px and a Logout button', () => {
    renderShell('healthProvider', false);
    expect(screen.getByRole('button', { name: 'Open menu' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Logout' })).toBeInTheDocument();
  });
});

import type { RoleName } from '@medshare/contracts';
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { getNavItems } from '../components/layout/nav-items';
import { clearSession, setUser } from '../lib/session';
import { store } from '../lib/store';
import { makeUser, renderRoutes } from '../testing/test-utils';
import { RequirePageAccess } from './require-page-access';

const pages = ['/upload', '/audit-logs', '/roles-permissions', '/appsettings', '/admin-dashboard', '/ai-analysis/x'];
const routes = [
  {
    element: <RequirePageAccess />,
    children: [...pages, '/view-images', '/messages', '/dashboard', '/profile', '/dicom/x'].map((path) => ({
      path,
      element: <h1>Page {path}</h1>,
    })),
  },
];

function renderAs(role: RoleName, path: string) {
  store.dispatch(setUser({ user: makeUser({ role }), token: 'token-123' }));
  return renderRoutes(routes, path);
}

const notAvailable = () => screen.queryByRole('heading', { name: 'Not available for your role' });

describe('RequirePageAccess', () => {
  afterEach(() => {
    store.dispatch(clearSession());
  });

  it('shows a patient "Not available for your role" on pages their permissions do not cover, with a way back', () => {
    for (const path of pages) {
      const { unmount } = renderAs('patient', path);
      expect(notAvailable(), path).toBeInTheDocument();
      expect(screen.queryByRole('heading', { name: `Page ${path}` })).not.toBeInTheDocument();
      expect(screen.getByRole('link', { name: 'Go to View Images' })).toHaveAttribute('href', '/view-images');
      unmount();
    }
  });

  it('lets a patient use the pages every role may use', () => {
    for (const path of ['/view-images', '/messages', '/dashboard', '/profile', '/dicom/x']) {
      const { unmount } = renderAs('patient', path);
      expect(screen.getByRole('heading', { name: `Page ${path}` })).toBeInTheDocument();
      unmount();
    }
  });

  it('lets a provider upload, read audit logs and run analysis, but not manage roles, settings or users', () => {
    for (const [path, open] of [
      ['/upload', true],
      ['/audit-logs', true],
      ['/ai-analysis/x', true],
      ['/roles-permissions', false],
      ['/appsettings', false],
      ['/admin-dashboard', false],
    ] as const) {
      const { unmount } = renderAs('healthProvider', path);
      expect(Boolean(notAvailable()), path).toBe(!open);
      unmount();
    }
  });

  it('opens every page to an admin', () => {
    for (const path of pages) {
      const { unmount } = renderAs('admin', path);
      expect(screen.getByRole('heading', { name: `Page ${path}` })).toBeInTheDocument();
      unmount();
    }
  });

  it('agrees with the menu: every item a role sees opens, for every role', () => {
    for (const role of ['patient', 'healthProvider', 'admin'] as const) {
      for (const item of getNavItems(role, 'mobile').filter((i) => i.to !== '/')) {
        const { unmount } = renderAs(role, item.to);
        expect(notAvailable(), `${role} ${item.to}`).not.toBeInTheDocument();
        unmount();
      }
    }
  });
});

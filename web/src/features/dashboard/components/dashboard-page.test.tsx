import type { AdminUserSummary, DashboardStats, RoleName, User, UserSummary } from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, failure, ok, paged } from '../../../testing/handlers';
import { bodiesOf, recordRequests, requestsTo, server } from '../../../testing/server';
import { makeUser, renderRoutes } from '../../../testing/test-utils';
import { DashboardPage } from './dashboard-page';
import { welcomeText } from './welcome-line';

const stats = { totalUsers: 12, totalImages: 34, sharedImages: 7, imageStatsAvailable: true };

function adminRow(n: number, overrides: Partial<AdminUserSummary> = {}): AdminUserSummary {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    firstname: 'User',
    lastname: `Number${n}`,
    email: `user${n}@example.test`,
    role: 'patient',
    gender: 'female',
    username: `user${n}`,
    active: true,
    pending: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

const providerRow = (n: number): UserSummary => {
  const { id, firstname, lastname, email, role, gender } = adminRow(n);
  return { id, firstname, lastname, email, role, gender };
};

/** The users list and the stat cards, answered through MSW; returns the requests the page makes. */
function mockApi(
  rows: Array<AdminUserSummary | UserSummary>,
  totalItems = rows.length,
  usersStatus = 200,
  totalItemsCapped?: boolean,
) {
  server.use(
    api.get<DashboardStats>('/users/stats', () => ok(stats)),
    api.get<Array<AdminUserSummary | UserSummary>>('/users', ({ request }) => {
      if (usersStatus !== 200) return failure(usersStatus, 'Forbidden');
      const url = new URL(request.url);
      const limit = Number(url.searchParams.get('limit'));
      return paged(rows.slice(0, limit), {
        currentPage: Number(url.searchParams.get('page')),
        pageSize: limit,
        totalPages: Math.ceil(totalItems / limit),
        totalItems,
        hasPrevPage: false,
        hasNextPage: totalItems > limit,
        ...(totalItemsCapped === undefined ? {} : { totalItemsCapped }),
      });
    }),
  );
  return recordRequests();
}

/** Path and query of every users-list read, e.g. '/api/users?page=1&limit=5&…'. */
const listReads = (requests: Request[]) =>
  requestsTo(requests, 'GET', '/users').map((r) => {
    const url = new URL(r.url);
    return `${url.pathname}${url.search}`;
  });

function renderAs(role: RoleName) {
  store.dispatch(setUser({ user: makeUser({ role, firstname: 'Sana', lastname: 'Malik' }), token: 'tok' }));
  return renderRoutes(
    [
      { path: '/dashboard', element: <DashboardPage /> },
      { path: '/user-profile/:id', element: <h1>Profile page</h1> },
    ],
    '/dashboard',
  );
}

describe('Dashboard', () => {
  beforeEach(() => {
    store.dispatch(clearSession());
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('welcomes an admin with the role name in brackets and anyone else without it', () => {
    expect(welcomeText({ firstname: 'Sana', lastname: 'Malik', role: 'admin' })).toBe('Welcome, Sana Malik (Admin)');
    expect(welcomeText({ firstname: 'Sana', lastname: 'Malik', role: 'healthProvider' })).toBe('Welcome, Sana Malik');
    expect(welcomeText({ firstname: 'Sana', lastname: 'Malik', role: 'patient' })).toBe('Welcome, Sana Malik');
  });

  it('shows the welcome heading and the three stat cards with their counts', async () => {
    mockApi([providerRow(1)]);
    renderAs('healthProvider');
    expect(screen.getByRole('heading', { level: 1, name: 'Welcome, Sana Malik' })).toBeInTheDocument();
    expect(await within(screen.getByRole('region', { name: 'Total Images' })).findByText('34')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Shared Images' })).getByText('7')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Total Users' })).getByText('12')).toBeInTheDocument();
  });

  it("pages the table 5 rows at a time with 'Rows per page:' and 'from–to of count', offering 5, 10 and 25", async () => {
    const requests = mockApi(
      Array.from({ length: 12 }, (_, i) => adminRow(i + 1)),
      12,
    );
    renderAs('admin');
    expect(await screen.findByText('1–5 of 12')).toBeInTheDocument();
    expect(screen.getByText('Rows per page:')).toBeInTheDocument();
    const firstList = listReads(requests)[0];
    expect(firstList).toContain('limit=5');
    expect(firstList).toContain('page=1');
    expect(screen.getAllByRole('row')).toHaveLength(1 + 5);

    const user = userEvent.setup();
    await user.click(screen.getByRole('combobox', { name: /Rows per page/ }));
    const options = within(screen.getByRole('listbox')).getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['5', '10', '25']);
    await user.click(options[1]!);
    expect(await screen.findByText('1–10 of 12')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: /next page/i }));
    await waitFor(() =>
      expect(listReads(requests).some((u) => u.includes('page=2') && u.includes('limit=10'))).toBe(true),
    );
  });

  it("reads 'from–to of 10000+' when the server counted only its list window", async () => {
    mockApi(
      Array.from({ length: 5 }, (_, i) => adminRow(i + 1)),
      10_000,
      200,
      true,
    );
    renderAs('admin');
    expect(await screen.findByText('1–5 of 10000+')).toBeInTheDocument();
  });

  it('sorts on the server when a column header is clicked', async () => {
    const requests = mockApi([adminRow(1)]);
    renderAs('admin');
    await screen.findByText('User Number1');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Email' }));
    await waitFor(() =>
      expect(listReads(requests).some((u) => u.includes('sort=email') && u.includes('order=asc'))).toBe(true),
    );
  });

  it('offers an admin View, Deactivate and Delete on an active row and Approve on a pending provider', async () => {
    mockApi([adminRow(1), adminRow(2, { role: 'healthProvider', pending: true, active: false })]);
    renderAs('admin');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Actions for User Number1' }));
    expect(screen.getAllByRole('menuitem').map((i) => i.textContent)).toEqual(['View', 'Deactivate', 'Delete']);
    await user.keyboard('{Escape}');
    expect(screen.getByText('Pending')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Actions for User Number2' }));
    expect(screen.getAllByRole('menuitem').map((i) => i.textContent)).toEqual(['View', 'Activate', 'Delete']);
  });

  it('on a phone lists each user with their actions beside the name, and sorts from a select', async () => {
    vi.stubGlobal(
      'matchMedia',
      (query: string) =>
        ({
          matches: query.includes('max-width'),
          media: query,
          addEventListener: () => {},
          removeEventListener: () => {},
          addListener: () => {},
          removeListener: () => {},
        }) as unknown as MediaQueryList,
    );
    const requests = mockApi([adminRow(1), adminRow(2, { role: 'healthProvider', pending: true, active: false })]);
    renderAs('admin');
    const user = userEvent.setup();
    const item = await screen.findByRole('listitem', { name: 'User Number1' });
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(within(item).getByText('user1@example.test')).toBeInTheDocument();
    expect(within(screen.getByRole('listitem', { name: 'User Number2' })).getByText('Pending')).toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'Actions for User Number1' }));
    expect(screen.getAllByRole('menuitem').map((i) => i.textContent)).toEqual(['View', 'Deactivate', 'Delete']);
    await user.keyboard('{Escape}');
    await user.click(screen.getByRole('combobox', { name: 'Sort by' }));
    await user.click(await screen.findByRole('option', { name: 'Email A–Z' }));
    await waitFor(() =>
      expect(listReads(requests).some((u) => u.includes('sort=email') && u.includes('order=asc'))).toBe(true),
    );
  });

  it('offers a provider only View, which opens the user profile, and no Active column', async () => {
    mockApi([providerRow(1)]);
    renderAs('healthProvider');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Actions for User Number1' }));
    expect(screen.getAllByRole('menuitem').map((i) => i.textContent)).toEqual(['View']);
    expect(screen.queryByRole('columnheader', { name: 'Active' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('menuitem', { name: 'View' }));
    expect(await screen.findByRole('heading', { name: 'Profile page' })).toBeInTheDocument();
  });

  it('shows a patient the welcome and the cards only: no users table and no error', async () => {
    const requests = mockApi([], 0, 403);
    renderAs('patient');
    expect(await within(screen.getByRole('region', { name: 'Total Users' })).findByText('12')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(listReads(requests).some((u) => u.startsWith('/api/users?'))).toBe(false);
  });

  it('shows the column headers of docs/product.md › Dashboard with a select-all checkbox', async () => {
    mockApi([adminRow(1)]);
    renderAs('admin');
    await screen.findByText('User Number1');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      '',
      'Full Name',
      'Email',
      'Role',
      'Gender',
      'Active',
      'Actions',
    ]);
    await userEvent.setup().click(screen.getByRole('checkbox', { name: 'Select all users on this page' }));
    expect(screen.getByRole('checkbox', { name: 'Select User Number1' })).toBeChecked();
    expect(screen.getByText('1 selected')).toBeInTheDocument();
  });

  it('Deactivate sends PUT toggleUserStatus/:id asking for an inactive account, and reads the users page and the counts again', async () => {
    const success = vi.spyOn(toast, 'success');
    const requests = mockApi([adminRow(1)]);
    const row = adminRow(1);
    server.use(
      api.put<User>(`/users/toggleUserStatus/${row.id}`, () => ok(makeUser({ id: row.id }), 'User deactivated')),
    );
    renderAs('admin');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Actions for User Number1' }));
    await waitFor(() => expect(requestsTo(requests, 'GET', '/users/stats')).toHaveLength(1));
    expect(listReads(requests)).toHaveLength(1);
    await user.click(screen.getByRole('menuitem', { name: 'Deactivate' }));

    await waitFor(() => expect(success).toHaveBeenCalledWith('User deactivated'));
    // The state asked for, not a toggle: a second click cannot undo the first.
    expect(await bodiesOf(requests, 'PUT', `/users/toggleUserStatus/${row.id}`)).toEqual([{ active: false }]);
    await waitFor(() => expect(listReads(requests)).toHaveLength(2));
    await waitFor(() => expect(requestsTo(requests, 'GET', '/users/stats')).toHaveLength(2));
  });
});

import type { AdminSummary } from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { jsonResponse, makeUser, renderWithProviders } from '../../../testing/test-utils';
import { AdminDashboardPage } from './admin-dashboard-page';

const pendingId = '7a2b3c4d-1111-4222-8333-444455556666';

function summary(pending: boolean): AdminSummary {
  return {
    pendingProviders: {
      count: pending ? 1 : 0,
      items: pending
        ? [
            {
              id: pendingId,
              firstname: 'Bilal',
              lastname: 'Ahmed',
              email: 'bilal@example.test',
              role: 'healthProvider',
              gender: null,
              username: 'bahmed',
              active: false,
              pending: true,
              createdAt: '2026-03-01T10:00:00.000Z',
            },
          ]
        : [],
    },
    usersByRole: { patient: 10, healthProvider: 3, admin: 1 },
    activeUsers: 13,
    uploadsPerDay: Array.from({ length: 14 }, (_, i) => ({
      date: `2026-03-${String(i + 1).padStart(2, '0')}`,
      count: i % 3,
    })),
    uploadsAvailable: true,
  };
}

describe('Admin dashboard', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('approves a pending provider and reloads the summary', async () => {
    let approved = false;
    const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
      const path = String(input);
      if (path === '/api/admin/summary') return jsonResponse(200, { success: true, data: summary(!approved) });
      if (path === `/api/users/toggleUserStatus/${pendingId}` && init?.method === 'PUT') {
        approved = true;
        return jsonResponse(200, { success: true, message: 'User activated', data: makeUser({ id: pendingId }) });
      }
      return jsonResponse(200, {
        success: true,
        data: { displayLocale: 'en-PK', displayTimeZone: 'Asia/Karachi', maxUploadMb: 10 },
      });
    });
    vi.stubGlobal('fetch', fetchMock);
    store.dispatch(setUser({ user: makeUser({ role: 'admin' }), token: 'tok' }));
    renderWithProviders(<AdminDashboardPage />);
    expect(
      screen.getByRole('heading', { level: 1, name: 'Secure Medical Image Sharing Dashboard' }),
    ).toBeInTheDocument();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Approve Bilal Ahmed' }));
    expect(await screen.findByText('No providers are waiting for approval.')).toBeInTheDocument();
    expect(approved).toBe(true);
  });

  it('gives the uploads chart a table of the 14 days for screen readers', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>(async (input) =>
        String(input) === '/api/admin/summary'
          ? jsonResponse(200, { success: true, data: summary(false) })
          : jsonResponse(500, { success: false, message: 'down' }),
      ),
    );
    renderWithProviders(<AdminDashboardPage />);
    const table = await screen.findByRole('table', { name: 'Uploads per day' });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(15));
    expect(within(table).getByRole('rowheader', { name: /14 March 2026/ })).toBeInTheDocument();
  });
});

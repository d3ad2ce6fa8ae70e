import { type AdminSummary, ApiPaths, type PublicSettings, type User } from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import { setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, failure, ok } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
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
  it('activates a pending provider (Activate, the users table’s word) and reloads the summary', async () => {
    let activated = false;
    server.use(
      api.get<AdminSummary>('/admin/summary', () => ok(summary(!activated))),
      api.put<User>(`${ApiPaths.toggleUserStatus}/${pendingId}`, async ({ request }) => {
        // The state asked for: a second click answers the approved account, never deactivates it.
        expect(await request.json()).toEqual({ active: true });
        activated = true;
        return ok(makeUser({ id: pendingId }), 'User activated');
      }),
      api.get<PublicSettings>('/appsetting/public', () =>
        ok({
          displayLocale: 'en-PK',
          displayTimeZone: 'Asia/Karachi',
          maxUploadMb: 10,
          maxImportFiles: 2000,
          maxImportMb: 2048,
        }),
      ),
    );
    store.dispatch(setUser({ user: makeUser({ role: 'admin' }), token: 'tok' }));
    renderWithProviders(<AdminDashboardPage />);
    expect(
      screen.getByRole('heading', { level: 1, name: 'Secure Medical Image Sharing Dashboard' }),
    ).toBeInTheDocument();
    const activate = await screen.findByRole('button', { name: 'Activate Bilal Ahmed' });
    expect(activate).toHaveTextContent('Activate');
    expect(screen.queryByRole('button', { name: /approve/i })).not.toBeInTheDocument();
    await userEvent.setup().click(activate);
    expect(await screen.findByText('No providers are waiting for activation.')).toBeInTheDocument();
    expect(activated).toBe(true);
  });

  it('gives the uploads chart a table of the 14 days for screen readers', async () => {
    server.use(
      api.get<AdminSummary>('/admin/summary', () => ok(summary(false))),
      http.all('/api/*', () => failure(500, 'down')),
    );
    renderWithProviders(<AdminDashboardPage />);
    const table = await screen.findByRole('table', { name: 'Uploads per day' });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(15));
    expect(within(table).getByRole('rowheader', { name: /14 March 2026/ })).toBeInTheDocument();
  });
});

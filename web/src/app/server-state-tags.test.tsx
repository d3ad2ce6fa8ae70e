import type {
  AdminSummary,
  AdminUserSummary,
  AppSetting,
  DashboardStats,
  PublicSettings,
  User,
} from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { AdminDashboardPage } from '../features/admin/components/admin-dashboard-page';
import { UsersTable } from '../features/dashboard/components/users-table';
import { usePublicSettings } from '../lib/public-settings';
import { useDisplayZone } from '../features/messages/hooks/use-display-zone';
import { api, ok, paged, publicSettings } from '../testing/handlers';
import { recordRequests, requestsTo, server } from '../testing/server';
import { makeUser, renderWithProviders } from '../testing/test-utils';
import { SettingsPage } from '../features/settings/components/settings-page';

const zoneSetting: AppSetting = {
  id: '00000000-0000-4000-8000-000000000010',
  name: 'display_time_zone',
  value: 'UTC',
  description: 'Time zone for dates',
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
};

/** Another page's view of the settings, mounted beside the settings screen. */
function OtherPage() {
  const zone = useDisplayZone();
  const { maxUploadMb } = usePublicSettings();
  return (
    <section aria-label="Other page">
      <p>{`Messages zone: ${zone.timeZone}`}</p>
      <p>{`Upload limit: ${maxUploadMb} MB`}</p>
    </section>
  );
}

describe('cache tags: one write reaches every page that shows what it changed', () => {
  it('a new display_time_zone shows on another mounted page without a reload, from one shared read', async () => {
    let current: PublicSettings = {
      displayLocale: 'en-GB',
      displayTimeZone: 'UTC',
      maxUploadMb: 10,
      maxImportFiles: 2000,
      maxImportMb: 2048,
    };
    server.use(
      api.get<PublicSettings>('/appsetting/public', () => ok(current)),
      api.get<AppSetting[]>('/appsetting/', () => ok([zoneSetting])),
      api.put<AppSetting, { value: string }>(`/appsetting/edit/${zoneSetting.id}`, async ({ request }) => {
        const { value } = await request.json();
        current = { ...current, displayTimeZone: value };
        return ok({ ...zoneSetting, value }, 'Setting updated');
      }),
    );
    const requests = recordRequests();
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <SettingsPage />
        <OtherPage />
      </>,
    );
    const other = screen.getByRole('region', { name: 'Other page' });
    expect(await within(other).findByText('Messages zone: UTC')).toBeInTheDocument();

    const row = (await screen.findByText('display_time_zone')).closest('tr') as HTMLElement;
    await user.click(within(row).getByRole('button', { name: 'Edit display_time_zone' }));
    const value = screen.getByRole('textbox', { name: 'Value' });
    await user.clear(value);
    await user.type(value, 'Asia/Tokyo');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await within(other).findByText('Messages zone: Asia/Tokyo')).toBeInTheDocument();
    expect(within(other).getByText('Upload limit: 10 MB')).toBeInTheDocument();
    // Settings page, messages hook and upload limit share one read; the edit causes one more.
    expect(requestsTo(requests, 'GET', '/appsetting/public')).toHaveLength(2);
  });

  it('deactivating a user in the users table reads the admin summary again', async () => {
    const row: AdminUserSummary = {
      id: '00000000-0000-4000-8000-000000000021',
      firstname: 'Hina',
      lastname: 'Raza',
      email: 'hina@example.test',
      role: 'patient',
      gender: null,
      username: 'hraza',
      active: true,
      pending: false,
      createdAt: '2026-03-01T10:00:00.000Z',
    };
    let active = 13;
    server.use(
      publicSettings(),
      api.get<AdminUserSummary[]>('/users', () => paged([row])),
      api.get<DashboardStats>('/users/stats', () =>
        ok({ totalUsers: 14, totalImages: 0, sharedImages: 0, imageStatsAvailable: true }),
      ),
      api.get<AdminSummary>('/admin/summary', () =>
        ok({
          pendingProviders: { count: 0, items: [] },
          usersByRole: { patient: 10, healthProvider: 3, admin: 1 },
          activeUsers: active,
          uploadsPerDay: [],
          uploadsAvailable: false,
        }),
      ),
      api.put<User>(`/users/toggleUserStatus/${row.id}`, () => {
        active -= 1;
        return ok(makeUser({ id: row.id, active: false }), 'User deactivated');
      }),
    );
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <UsersTable viewer={makeUser({ role: 'admin' })} />
        <AdminDashboardPage />
      </>,
    );
    // The figure beside its label in the summary (a dt and its dd).
    const activeUsers = () => screen.getByText('Active users').nextElementSibling;
    await within(await screen.findByRole('table')).findByText('Hina Raza');
    await waitFor(() => expect(activeUsers()).toHaveTextContent('13'));

    await user.click(screen.getByRole('button', { name: 'Actions for Hina Raza' }));
    await user.click(screen.getByRole('menuitem', { name: 'Deactivate' }));
    await waitFor(() => expect(activeUsers()).toHaveTextContent('12'));
  });
});

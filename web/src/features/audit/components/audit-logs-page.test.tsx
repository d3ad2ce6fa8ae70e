import type { AuditLog } from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderWithProviders } from '../../../testing/test-utils';
import { AuditLogsPage } from './audit-logs-page';

function log(id: number, overrides: Partial<AuditLog> = {}): AuditLog {
  return {
    id,
    createAt: '2026-03-01T10:00:00.000Z',
    user: { id: '6f1c1d0e-4b8a-4d5e-9a43-2b7f0c9e1a11', firstname: 'Amina', lastname: 'Khan', username: 'akhan' },
    actiontype: 'auth.login',
    tablename: 'users',
    recordId: null,
    ipaddress: '10.0.0.7',
    status: 'success',
    reason: null,
    ...overrides,
  };
}

type LogsAnswer = (query: URLSearchParams) => Response | Promise<Response>;

/** Pages of `total` rows, as the server would cut them. */
const pagedLogs =
  (total: number, capped = false): LogsAnswer =>
  (query) => {
    const page = Number(query.get('page'));
    const limit = Number(query.get('limit'));
    const first = (page - 1) * limit;
    const items = Array.from({ length: Math.max(0, Math.min(limit, total - first)) }, (_, i) => log(first + i + 1));
    const totalPages = Math.ceil(total / limit);
    return jsonResponse(200, {
      success: true,
      data: items,
      pagination: {
        currentPage: page,
        pageSize: limit,
        totalPages,
        totalItems: total,
        hasPrevPage: page > 1,
        hasNextPage: page < totalPages,
        totalItemsCapped: capped,
      },
    });
  };

function stubApi(logs: LogsAnswer) {
  const fetchMock = vi.fn<typeof fetch>(async (input) => {
    const url = new URL(String(input), 'http://localhost');
    if (url.pathname === '/api/appsetting/public') {
      return jsonResponse(200, {
        success: true,
        data: { displayLocale: 'en-GB', displayTimeZone: 'UTC', maxUploadMb: 10 },
      });
    }
    if (url.pathname === '/api/audit/actions') {
      return jsonResponse(200, { success: true, data: ['auth.login', 'settings.update'] });
    }
    if (url.pathname === '/api/audit/logs') return logs(url.searchParams);
    throw new Error(`unexpected ${url.pathname}`);
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const logQueries = (fetchMock: ReturnType<typeof stubApi>) =>
  fetchMock.mock.calls
    .map(([input]) => new URL(String(input), 'http://localhost'))
    .filter((url) => url.pathname === '/api/audit/logs')
    .map((url) => url.searchParams);

const bodyRows = () => within(screen.getAllByRole('rowgroup')[1]!).getAllByRole('row');

describe('AuditLogsPage', () => {
  beforeEach(() => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });

  it('shows the spec columns and a row with its user, action and status', async () => {
    stubApi(pagedLogs(1));
    renderWithProviders(<AuditLogsPage />);
    expect(await screen.findByText('@akhan')).toBeInTheDocument();
    for (const name of ['Timestamp', 'User', 'Action', 'Table', 'IP Address', 'Reason', 'Status']) {
      expect(screen.getByRole('columnheader', { name })).toBeInTheDocument();
    }
    const row = bodyRows()[0]!;
    expect(row).toHaveTextContent('Amina Khan');
    expect(row).toHaveTextContent('auth.login');
    expect(row).toHaveTextContent('10.0.0.7');
    expect(within(row).getByText('Success')).toBeInTheDocument();
  });

  it('pages on the server with 5, 10 or 20 rows per page, 5 by default', async () => {
    const fetchMock = stubApi(pagedLogs(23));
    const user = userEvent.setup();
    renderWithProviders(<AuditLogsPage />);
    await screen.findByText('1–5 of 23');
    expect(bodyRows()).toHaveLength(5);
    expect(logQueries(fetchMock)[0]!.get('limit')).toBe('5');
    expect(logQueries(fetchMock)[0]!.get('page')).toBe('1');

    await user.click(screen.getByRole('combobox', { name: /Rows per page/ }));
    const options = within(screen.getByRole('listbox')).getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['5', '10', '20']);
    await user.click(options[2]!);
    await screen.findByText('1–20 of 23');
    expect(bodyRows()).toHaveLength(20);
    expect(logQueries(fetchMock).at(-1)!.get('limit')).toBe('20');

    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    await screen.findByText('21–23 of 23');
    expect(logQueries(fetchMock).at(-1)!.get('page')).toBe('2');
    expect(bodyRows()).toHaveLength(3);
  });

  it('searches by user after typing stops, and filters by action and dates, from page 1', async () => {
    const fetchMock = stubApi(pagedLogs(12));
    const user = userEvent.setup();
    renderWithProviders(<AuditLogsPage />);
    await screen.findByText('1–5 of 12');
    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    await screen.findByText('6–10 of 12');

    await user.type(screen.getByRole('searchbox', { name: 'Search by user' }), 'amina');
    await waitFor(() => expect(logQueries(fetchMock).at(-1)!.get('search')).toBe('amina'));
    // Debounced: one request for the whole word, not one per key.
    expect(logQueries(fetchMock).filter((q) => q.has('search'))).toHaveLength(1);
    expect(logQueries(fetchMock).at(-1)!.get('page')).toBe('1');

    await screen.findByRole('option', { name: 'settings.update' });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Action' }), 'settings.update');
    await waitFor(() => expect(logQueries(fetchMock).at(-1)!.get('action')).toBe('settings.update'));
    await user.type(screen.getByLabelText('From'), '2026-03-01');
    await waitFor(() => expect(logQueries(fetchMock).at(-1)!.get('from')).toBe('2026-03-01'));
  });

  it('says when only the newest 10 000 matches can be paged through', async () => {
    stubApi(pagedLogs(10_000, true));
    renderWithProviders(<AuditLogsPage />);
    expect(await screen.findByText(/showing the newest 10 000 matches — narrow the filters/i)).toBeInTheDocument();
  });

  it('renders a server error answer in the table as "Error data: …"', async () => {
    stubApi(() => jsonResponse(403, { success: false, message: 'You are not allowed to do this' }));
    renderWithProviders(<AuditLogsPage />);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/^Error data: You are not allowed to do this$/);
    expect(alert.closest('table')).not.toBeNull();
  });

  it('renders a request without an answer in the table as "Error request: …"', async () => {
    stubApi(() => Promise.reject(new TypeError('Failed to fetch')));
    renderWithProviders(<AuditLogsPage />);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/^Error request: /);
    expect(alert.closest('table')).not.toBeNull();
  });

  it('renders any other failure in the table as "Error message: …"', async () => {
    // A 200 that is not the expected envelope (e.g. a proxy's page): neither an error answer nor a lost request.
    stubApi(() => new Response('<html>maintenance</html>', { status: 200 }));
    renderWithProviders(<AuditLogsPage />);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/^Error message: The server sent an unexpected answer\.$/);
    expect(alert.closest('table')).not.toBeNull();
  });
});

import type { AuditLog } from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { API_BASE } from '../../../lib/api-client';
import { api, failure, ok, paged, publicSettings } from '../../../testing/handlers';
import { recordRequests, requestsTo, server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
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
    return paged(items, { currentPage: page, pageSize: limit, totalItems: total, totalItemsCapped: capped });
  };

/** The trail, its action list and the public display settings through MSW; returns the requests made. */
function serveAudit(logs: LogsAnswer) {
  server.use(
    publicSettings(),
    api.get<string[]>('/audit/actions', () => ok(['auth.login', 'settings.update'])),
    http.get(`${API_BASE}/audit/logs`, ({ request }) => logs(new URL(request.url).searchParams)),
  );
  return recordRequests();
}

/** The query of every trail read, in order. */
const logQueries = (requests: Request[]) =>
  requestsTo(requests, 'GET', '/audit/logs').map((request) => new URL(request.url).searchParams);

const bodyRows = () => within(screen.getAllByRole('rowgroup')[1]!).getAllByRole('row');

describe('AuditLogsPage', () => {
  beforeEach(() => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });

  it('shows the columns of docs/product.md › Audit logs and a row with its user, action and status', async () => {
    serveAudit(pagedLogs(1));
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
    const requests = serveAudit(pagedLogs(23));
    const user = userEvent.setup();
    renderWithProviders(<AuditLogsPage />);
    await screen.findByText('1–5 of 23');
    expect(bodyRows()).toHaveLength(5);
    expect(logQueries(requests)[0]!.get('limit')).toBe('5');
    expect(logQueries(requests)[0]!.get('page')).toBe('1');

    await user.click(screen.getByRole('combobox', { name: /Rows per page/ }));
    const options = within(screen.getByRole('listbox')).getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['5', '10', '20']);
    await user.click(options[2]!);
    await screen.findByText('1–20 of 23');
    // The pager's label follows the choice at once; the rows follow the server's answer.
    await waitFor(() => expect(bodyRows()).toHaveLength(20));
    expect(logQueries(requests).at(-1)!.get('limit')).toBe('20');

    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    await screen.findByText('21–23 of 23');
    expect(logQueries(requests).at(-1)!.get('page')).toBe('2');
    await waitFor(() => expect(bodyRows()).toHaveLength(3));
  });

  it('searches by user after typing stops, and filters by action and dates, from page 1', async () => {
    const requests = serveAudit(pagedLogs(12));
    const user = userEvent.setup();
    renderWithProviders(<AuditLogsPage />);
    await screen.findByText('1–5 of 12');
    await user.click(screen.getByRole('button', { name: 'Go to next page' }));
    await screen.findByText('6–10 of 12');

    await user.type(screen.getByRole('searchbox', { name: 'Search by user' }), 'amina');
    await waitFor(() => expect(logQueries(requests).at(-1)!.get('search')).toBe('amina'));
    // Debounced: one request for the whole word, not one per key.
    expect(logQueries(requests).filter((q) => q.has('search'))).toHaveLength(1);
    expect(logQueries(requests).at(-1)!.get('page')).toBe('1');

    await screen.findByRole('option', { name: 'settings.update' });
    await user.selectOptions(screen.getByRole('combobox', { name: 'Action' }), 'settings.update');
    await waitFor(() => expect(logQueries(requests).at(-1)!.get('action')).toBe('settings.update'));
    await user.type(screen.getByLabelText('From'), '2026-03-01');
    await waitFor(() => expect(logQueries(requests).at(-1)!.get('from')).toBe('2026-03-01'));
  });

  it('filters by kind of row (reads of others’ data, refusals, changes) and clears it with the others', async () => {
    const requests = serveAudit(pagedLogs(12));
    const user = userEvent.setup();
    renderWithProviders(<AuditLogsPage />);
    await screen.findByText('1–5 of 12');
    const kind = screen.getByRole('combobox', { name: 'Kind' });
    expect(
      within(kind)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['All kinds', 'Reads of others’ data', 'Refusals and failures', 'Changes']);
    expect(logQueries(requests)[0]!.has('category')).toBe(false);
    await user.selectOptions(kind, 'Refusals and failures');
    await waitFor(() => expect(logQueries(requests).at(-1)!.get('category')).toBe('refusals'));
    await user.selectOptions(kind, 'Reads of others’ data');
    await waitFor(() => expect(logQueries(requests).at(-1)!.get('category')).toBe('reads'));
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(logQueries(requests).at(-1)!.has('category')).toBe(false));
    expect(kind).toHaveValue('');
  });

  it('says when only the newest 10 000 matches can be paged through', async () => {
    serveAudit(pagedLogs(10_000, true));
    renderWithProviders(<AuditLogsPage />);
    expect(await screen.findByText(/showing the newest 10 000 matches — narrow the filters/i)).toBeInTheDocument();
  });

  it('renders a server error answer in the table as "Error data: …"', async () => {
    serveAudit(() => failure(403, 'You are not allowed to do this'));
    renderWithProviders(<AuditLogsPage />);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/^Error data: You are not allowed to do this$/);
    expect(alert.closest('table')).not.toBeNull();
  });

  it('renders a request without an answer in the table as "Error request: …"', async () => {
    serveAudit(() => HttpResponse.error());
    renderWithProviders(<AuditLogsPage />);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/^Error request: /);
    expect(alert.closest('table')).not.toBeNull();
  });

  it('renders any other failure in the table as "Error message: …"', async () => {
    // A 200 that is not the expected envelope (e.g. a proxy's page): neither an error answer nor a lost request.
    serveAudit(() => new HttpResponse('<html>maintenance</html>', { status: 200 }));
    renderWithProviders(<AuditLogsPage />);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/^Error message: The server sent an unexpected answer\.$/);
    expect(alert.closest('table')).not.toBeNull();
  });
});

import type { AppSetting } from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { jsonResponse, renderWithProviders } from '../../../testing/test-utils';
import { SettingsPage } from './settings-page';

const UNREACHABLE = 'Backend server is not reachable. Please check your server.';

function setting(overrides: Partial<AppSetting>): AppSetting {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    name: 'welcome_text',
    value: 'Hello',
    description: 'Greeting on the dashboard',
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
    ...overrides,
  };
}

const custom = setting({});
const known = setting({ id: '00000000-0000-4000-8000-000000000002', name: 'max_upload_mb', value: '10' });

type Handler = (init: RequestInit | undefined) => Response | Promise<Response>;

/** A fetch stub answering by "METHOD path"; the public display settings are always there. */
function stubApi(handlers: Record<string, Handler>) {
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const url = new URL(String(input), 'http://localhost');
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    if (key === 'GET /api/appsetting/public') {
      return jsonResponse(200, {
        success: true,
        data: { displayLocale: 'en-GB', displayTimeZone: 'UTC', maxUploadMb: 10 },
      });
    }
    const handler = handlers[key];
    if (!handler) throw new Error(`unexpected ${key}`);
    return handler(init);
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

const list = (items: AppSetting[]) => () => jsonResponse(200, { success: true, data: items });
const callsTo = (fetchMock: ReturnType<typeof stubApi>, key: string) =>
  fetchMock.mock.calls.filter(
    ([input, init]) => `${init?.method ?? 'GET'} ${new URL(String(input), 'http://x').pathname}` === key,
  );

async function rowOf(name: string) {
  const cell = await screen.findByText(name);
  return cell.closest('tr') as HTMLElement;
}

describe('SettingsPage', () => {
  beforeEach(() => {
    // Spec §8: settings errors are logged; keep the test output readable.
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });

  it('shows the six columns and a row with its dates in the configured locale and zone', async () => {
    stubApi({ 'GET /api/appsetting/': list([custom]) });
    renderWithProviders(<SettingsPage />);
    const row = await rowOf('welcome_text');
    for (const name of ['Name', 'Value', 'Description', 'Created-at', 'Updated-at', 'Actions']) {
      expect(screen.getByRole('columnheader', { name })).toBeInTheDocument();
    }
    await waitFor(() => expect(within(row).getAllByText('1 Mar 2026, 10:00')).toHaveLength(2));
  });

  it('edits a row inline: Save sends the row and shows the saved value', async () => {
    const fetchMock = stubApi({
      'GET /api/appsetting/': list([custom]),
      [`PUT /api/appsetting/edit/${custom.id}`]: (init) => {
        const body = JSON.parse(String(init?.body)) as { value: string };
        return jsonResponse(200, {
          success: true,
          message: 'Setting updated',
          data: { ...custom, value: body.value, updatedAt: '2026-03-02T10:00:00.000Z' },
        });
      },
    });
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await user.click(within(await rowOf('welcome_text')).getByRole('button', { name: 'Edit welcome_text' }));
    const value = screen.getByRole('textbox', { name: 'Value' });
    await user.clear(value);
    await user.type(value, 'Welcome back');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Welcome back')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
    const [[, init]] = callsTo(fetchMock, `PUT /api/appsetting/edit/${custom.id}`) as [[unknown, RequestInit]];
    expect(JSON.parse(String(init.body))).toEqual({
      name: 'welcome_text',
      value: 'Welcome back',
      description: 'Greeting on the dashboard',
    });
  });

  it('Cancel leaves edit mode with the old value and makes no call', async () => {
    const fetchMock = stubApi({ 'GET /api/appsetting/': list([custom]) });
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await user.click(within(await rowOf('welcome_text')).getByRole('button', { name: 'Edit welcome_text' }));
    await user.type(screen.getByRole('textbox', { name: 'Value' }), ' changed');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));

    expect(screen.queryByRole('textbox', { name: 'Value' })).not.toBeInTheDocument();
    expect(within(await rowOf('welcome_text')).getByText('Hello')).toBeInTheDocument();
    expect(fetchMock.mock.calls.every(([, init]) => (init?.method ?? 'GET') === 'GET')).toBe(true);
  });

  it('refuses to add a setting without a name: inline error, no call', async () => {
    const fetchMock = stubApi({ 'GET /api/appsetting/': list([custom]) });
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await rowOf('welcome_text');
    await user.type(screen.getByRole('textbox', { name: 'New value' }), 'x');
    await user.type(screen.getByRole('textbox', { name: /New name/ }), '   ');
    await user.click(screen.getByRole('button', { name: 'Add' }));

    expect(screen.getByText('Name is required')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /New name/ })).toHaveAttribute('aria-invalid', 'true');
    expect(callsTo(fetchMock, 'POST /api/appsetting/add')).toHaveLength(0);
  });

  it('adds a setting with the spec payload and lists it', async () => {
    const added = setting({ id: '00000000-0000-4000-8000-000000000003', name: 'clinic_name', value: 'North' });
    const fetchMock = stubApi({
      'GET /api/appsetting/': list([custom]),
      'POST /api/appsetting/add': () => jsonResponse(201, { success: true, message: 'Setting added', data: added }),
    });
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await rowOf('welcome_text');
    await user.type(screen.getByRole('textbox', { name: /New name/ }), 'clinic_name');
    await user.type(screen.getByRole('textbox', { name: 'New value' }), 'North');
    await user.click(screen.getByRole('button', { name: 'Add' }));

    expect(await rowOf('clinic_name')).toBeInTheDocument();
    const [[, init]] = callsTo(fetchMock, 'POST /api/appsetting/add') as [[unknown, RequestInit]];
    expect(JSON.parse(String(init.body))).toEqual({
      setting: { name: 'clinic_name', value: 'North', description: null },
    });
    expect(screen.getByRole('textbox', { name: /New name/ })).toHaveValue('');
  });

  it('shows a server field error under the value input and as a "field: message" toast', async () => {
    const error = vi.spyOn(toast, 'error');
    stubApi({
      'GET /api/appsetting/': list([known]),
      [`PUT /api/appsetting/edit/${known.id}`]: () =>
        jsonResponse(400, {
          success: false,
          message: 'Validation failed',
          errors: [{ field: 'value', message: 'Must be a whole number' }],
        }),
    });
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await user.click(within(await rowOf('max_upload_mb')).getByRole('button', { name: 'Edit max_upload_mb' }));
    const value = screen.getByRole('textbox', { name: 'Value' });
    await user.clear(value);
    await user.type(value, 'lots');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Must be a whole number')).toBeInTheDocument();
    expect(value).toHaveAttribute('aria-invalid', 'true');
    expect(error).toHaveBeenCalledWith('value: Must be a whole number');
  });

  it('a network error on delete shows the alert "Backend server is not reachable. Please check your server."', async () => {
    stubApi({
      'GET /api/appsetting/': list([custom]),
      'DELETE /api/appsetting/delete': () => Promise.reject(new TypeError('Failed to fetch')),
    });
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await user.click(within(await rowOf('welcome_text')).getByRole('button', { name: 'Delete welcome_text' }));
    const confirm = await screen.findByRole('dialog', { name: 'Delete setting?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));

    const alert = await screen.findByRole('alertdialog');
    expect(alert).toHaveTextContent(UNREACHABLE);
    expect(alert).toHaveAccessibleDescription(UNREACHABLE);
    await user.click(within(alert).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(await rowOf('welcome_text')).toBeInTheDocument();
  });

  it('deletes a custom setting after confirmation, sending its id', async () => {
    const fetchMock = stubApi({
      'GET /api/appsetting/': list([custom]),
      'DELETE /api/appsetting/delete': () =>
        jsonResponse(200, { success: true, message: 'Setting deleted', data: null }),
    });
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await user.click(within(await rowOf('welcome_text')).getByRole('button', { name: 'Delete welcome_text' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));

    await waitFor(() => expect(screen.queryByText('welcome_text')).not.toBeInTheDocument());
    const [[, init]] = callsTo(fetchMock, 'DELETE /api/appsetting/delete') as [[unknown, RequestInit]];
    expect(JSON.parse(String(init.body))).toEqual({ id: custom.id });
  });

  it('known settings cannot be deleted or renamed: Delete is disabled and the name input is locked', async () => {
    const fetchMock = stubApi({ 'GET /api/appsetting/': list([known]) });
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    const row = await rowOf('max_upload_mb');
    const del = within(row).getByRole('button', { name: 'Delete max_upload_mb' });
    expect(del).toHaveAttribute('aria-disabled', 'true');
    await user.click(del);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(callsTo(fetchMock, 'DELETE /api/appsetting/delete')).toHaveLength(0);

    await user.click(within(row).getByRole('button', { name: 'Edit max_upload_mb' }));
    expect(screen.getByRole('textbox', { name: 'Name' })).toBeDisabled();
    expect(screen.getByText('This setting drives the application and cannot be renamed')).toBeInTheDocument();
  });

  it('still reports the 409 when the server refuses to delete a setting', async () => {
    const error = vi.spyOn(toast, 'error');
    stubApi({
      'GET /api/appsetting/': list([custom]),
      'DELETE /api/appsetting/delete': () =>
        jsonResponse(409, { success: false, message: 'This setting drives the application and cannot be deleted' }),
    });
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await user.click(within(await rowOf('welcome_text')).getByRole('button', { name: 'Delete welcome_text' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));

    await waitFor(() =>
      expect(error).toHaveBeenCalledWith('This setting drives the application and cannot be deleted'),
    );
    expect(await rowOf('welcome_text')).toBeInTheDocument();
  });

  it('renders a value with markup as text', async () => {
    stubApi({ 'GET /api/appsetting/': list([setting({ value: '<img src=x onerror=alert(1)>' })]) });
    const { container } = renderWithProviders(<SettingsPage />);
    expect(await screen.findByText('<img src=x onerror=alert(1)>')).toBeInTheDocument();
    expect(container.querySelector('img')).toBeNull();
  });
});

import type { AppSetting } from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { api, failure, ok, publicSettings, unreachable } from '../../../testing/handlers';
import { bodiesOf, recordRequests, requestsTo, server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
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

/** The settings list and the public display settings (UTC, en-GB), as the page reads them. */
function serveSettings(items: AppSetting[]) {
  server.use(
    publicSettings(),
    api.get<AppSetting[]>('/appsetting/', () => ok(items)),
  );
}

async function rowOf(name: string) {
  const cell = await screen.findByText(name);
  return cell.closest('tr') as HTMLElement;
}

describe('SettingsPage', () => {
  beforeEach(() => {
    // docs/product.md › Messages and errors: settings errors are logged; keep the test output readable.
    vi.spyOn(console, 'error').mockImplementation(() => {});
  });

  it('shows the six columns and a row with its dates in the configured locale and zone', async () => {
    serveSettings([custom]);
    renderWithProviders(<SettingsPage />);
    const row = await rowOf('welcome_text');
    for (const name of ['Name', 'Value', 'Description', 'Created-at', 'Updated-at', 'Actions']) {
      expect(screen.getByRole('columnheader', { name })).toBeInTheDocument();
    }
    await waitFor(() => expect(within(row).getAllByText('1 Mar 2026, 10:00')).toHaveLength(2));
  });

  it('edits a row inline: Save sends the row and shows the saved value', async () => {
    serveSettings([custom]);
    server.use(
      api.put<AppSetting, { value: string }>(`/appsetting/edit/${custom.id}`, async ({ request }) => {
        const body = await request.json();
        return ok({ ...custom, value: body.value, updatedAt: '2026-03-02T10:00:00.000Z' }, 'Setting updated');
      }),
    );
    const requests = recordRequests();
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await user.click(within(await rowOf('welcome_text')).getByRole('button', { name: 'Edit welcome_text' }));
    const value = screen.getByRole('textbox', { name: 'Value' });
    await user.clear(value);
    await user.type(value, 'Welcome back');
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Welcome back')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
    expect(await bodiesOf(requests, 'PUT', `/appsetting/edit/${custom.id}`)).toEqual([
      { name: 'welcome_text', value: 'Welcome back', description: 'Greeting on the dashboard' },
    ]);
    // The list is updated from the answer, not read a second time.
    expect(requestsTo(requests, 'GET', '/appsetting/')).toHaveLength(1);
  });

  it('the description wraps while editing (a text area) but stays one line, and Enter in it saves the row', async () => {
    const long = 'Greeting on the dashboard, shown to every signed-in user above their own images';
    serveSettings([setting({ description: long })]);
    server.use(
      api.put<AppSetting, { description: string }>(`/appsetting/edit/${custom.id}`, async ({ request }) => {
        const body = await request.json();
        return ok({ ...custom, description: body.description }, 'Setting updated');
      }),
    );
    const requests = recordRequests();
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await user.click(within(await rowOf('welcome_text')).getByRole('button', { name: 'Edit welcome_text' }));
    const description = screen.getByRole('textbox', { name: 'Description' });
    expect(description.tagName).toBe('TEXTAREA');
    expect(description).toHaveValue(long);
    // One line of text: Shift+Enter breaks no line (a space), Enter saves.
    await user.type(description, '{Shift>}{Enter}{/Shift}too{Enter}');

    await waitFor(() => expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument());
    expect(await bodiesOf(requests, 'PUT', `/appsetting/edit/${custom.id}`)).toEqual([
      { name: 'welcome_text', value: 'Hello', description: `${long} too` },
    ]);
  });

  it('Cancel leaves edit mode with the old value and makes no call', async () => {
    serveSettings([custom]);
    const requests = recordRequests();
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await user.click(within(await rowOf('welcome_text')).getByRole('button', { name: 'Edit welcome_text' }));
    await user.type(screen.getByRole('textbox', { name: 'Value' }), ' changed');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));

    expect(screen.queryByRole('textbox', { name: 'Value' })).not.toBeInTheDocument();
    expect(within(await rowOf('welcome_text')).getByText('Hello')).toBeInTheDocument();
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((request) => request.method === 'GET')).toBe(true);
  });

  it('refuses to add a setting without a name: inline error, no call', async () => {
    serveSettings([custom]);
    const requests = recordRequests();
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await rowOf('welcome_text');
    await user.type(screen.getByRole('textbox', { name: 'New value' }), 'x');
    await user.type(screen.getByRole('textbox', { name: /New name/ }), '   ');
    await user.click(screen.getByRole('button', { name: 'Add' }));

    expect(screen.getByText('Name is required')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /New name/ })).toHaveAttribute('aria-invalid', 'true');
    expect(requestsTo(requests, 'POST', '/appsetting/add')).toHaveLength(0);
  });

  it('adds a setting with the payload of docs/product.md › Calls and lists it', async () => {
    const added = setting({ id: '00000000-0000-4000-8000-000000000003', name: 'clinic_name', value: 'North' });
    serveSettings([custom]);
    server.use(api.post<AppSetting>('/appsetting/add', () => ok(added, 'Setting added', 201)));
    const requests = recordRequests();
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await rowOf('welcome_text');
    await user.type(screen.getByRole('textbox', { name: /New name/ }), 'clinic_name');
    await user.type(screen.getByRole('textbox', { name: 'New value' }), 'North');
    await user.click(screen.getByRole('button', { name: 'Add' }));

    expect(await rowOf('clinic_name')).toBeInTheDocument();
    expect(await bodiesOf(requests, 'POST', '/appsetting/add')).toEqual([
      { setting: { name: 'clinic_name', value: 'North', description: null } },
    ]);
    expect(screen.getByRole('textbox', { name: /New name/ })).toHaveValue('');
  });

  it('shows a server field error under the value input and as a "field: message" toast', async () => {
    const error = vi.spyOn(toast, 'error');
    serveSettings([known]);
    server.use(
      api.put<AppSetting>(`/appsetting/edit/${known.id}`, () =>
        failure(400, 'Validation failed', { errors: [{ field: 'value', message: 'Must be a whole number' }] }),
      ),
    );
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
    // What the user typed stays, beside the reason it was refused.
    await new Promise((r) => setTimeout(r, 300));
    expect(screen.getByRole('textbox', { name: 'Value' })).toHaveValue('lots');
  });

  it('a network error on delete shows the alert "Backend server is not reachable. Please check your server."', async () => {
    serveSettings([custom]);
    server.use(api.delete<null>('/appsetting/delete', () => unreachable()));
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
    serveSettings([custom]);
    server.use(api.delete<null>('/appsetting/delete', () => ok(null, 'Setting deleted')));
    const requests = recordRequests();
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    await user.click(within(await rowOf('welcome_text')).getByRole('button', { name: 'Delete welcome_text' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));

    await waitFor(() => expect(screen.queryByText('welcome_text')).not.toBeInTheDocument());
    expect(await bodiesOf(requests, 'DELETE', '/appsetting/delete')).toEqual([{ id: custom.id }]);
  });

  it('known settings cannot be deleted or renamed: Delete is disabled and the name input is locked', async () => {
    serveSettings([known]);
    const requests = recordRequests();
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    const row = await rowOf('max_upload_mb');
    const del = within(row).getByRole('button', { name: 'Delete max_upload_mb' });
    expect(del).toHaveAttribute('aria-disabled', 'true');
    await user.click(del);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(requestsTo(requests, 'DELETE', '/appsetting/delete')).toHaveLength(0);

    await user.click(within(row).getByRole('button', { name: 'Edit max_upload_mb' }));
    expect(screen.getByRole('textbox', { name: 'Name' })).toBeDisabled();
    expect(screen.getByText('This setting drives the application and cannot be renamed')).toBeInTheDocument();
  });

  it('still reports the 409 when the server refuses to delete a setting', async () => {
    const error = vi.spyOn(toast, 'error');
    serveSettings([custom]);
    server.use(
      api.delete<null>('/appsetting/delete', () =>
        failure(409, 'This setting drives the application and cannot be deleted'),
      ),
    );
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
    serveSettings([setting({ value: '<img src=x onerror=alert(1)>' })]);
    const { container } = renderWithProviders(<SettingsPage />);
    expect(await screen.findByText('<img src=x onerror=alert(1)>')).toBeInTheDocument();
    expect(container.querySelector('img')).toBeNull();
  });

  it('on a phone each setting is a card: Edit shows the inputs and Save/Cancel inside it', async () => {
    // A phone-width window: every max-width query matches.
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
    serveSettings([custom, known]);
    const user = userEvent.setup();
    renderWithProviders(<SettingsPage />);
    const card = await screen.findByRole('listitem', { name: 'welcome_text' });
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(within(card).getByText('Hello')).toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Edit welcome_text' }));
    const editing = screen.getByRole('listitem', { name: 'welcome_text' });
    expect(within(editing).getByRole('textbox', { name: 'Name' })).toHaveValue('welcome_text');
    expect(within(editing).getByRole('button', { name: 'Save' })).toBeInTheDocument();
    await user.click(within(editing).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('textbox', { name: 'Value' })).not.toBeInTheDocument();
    expect(screen.getByRole('form', { name: 'Add a setting' })).toBeInTheDocument();
  });
});

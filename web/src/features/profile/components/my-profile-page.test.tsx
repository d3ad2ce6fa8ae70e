import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { jsonResponse, makeUser, renderRoutes } from '../../../testing/test-utils';
import { MyProfilePage } from './my-profile-page';

const settings = { displayLocale: 'en-PK', displayTimeZone: 'Asia/Karachi', maxUploadMb: 10 };
const originalTz = process.env.TZ;

function stubFetch(handler: (url: URL, init: RequestInit | undefined) => Response | undefined) {
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const url = new URL(String(input), 'http://localhost');
    if (url.pathname === '/api/appsetting/public') return jsonResponse(200, { success: true, data: settings });
    return handler(url, init) ?? jsonResponse(404, { success: false, message: 'Not found' });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

function renderProfile() {
  return renderRoutes(
    [
      { path: '/profile', element: <MyProfilePage /> },
      { path: '/', element: <h1>Home page</h1> },
    ],
    '/profile',
  );
}

describe('My Profile', () => {
  beforeEach(() => store.dispatch(clearSession()));
  afterEach(() => {
    vi.unstubAllGlobals();
    process.env.TZ = originalTz;
  });

  it("shows the header, the four sections and 'N/A' for every missing value", async () => {
    stubFetch(() => undefined);
    store.dispatch(setUser({ user: makeUser({ bloodgroup: 'O+' }), token: 'tok' }));
    renderProfile();
    expect(screen.getByText('amina@example.test')).toBeInTheDocument();
    expect(screen.getByText('@akhan')).toBeInTheDocument();
    expect(screen.getByText('AK')).toBeInTheDocument();
    for (const title of ['Personal Information', 'Address', 'Medical Information', 'User Bio']) {
      expect(screen.getByRole('heading', { name: title })).toBeInTheDocument();
    }
    const address = within(screen.getByRole('region', { name: 'Address' }));
    expect(address.getAllByText('N/A')).toHaveLength(5);
    const medical = within(screen.getByRole('region', { name: 'Medical Information' }));
    expect(medical.getByText('O+')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'User Bio' })).getByText('N/A')).toBeInTheDocument();
  });

  it('shows the primary physician of a patient and the specialization of a provider only when present', () => {
    stubFetch(() => undefined);
    store.dispatch(setUser({ user: makeUser({ primphysician: null }), token: 'tok' }));
    const first = renderProfile();
    expect(screen.queryByText('Primary physician')).not.toBeInTheDocument();
    first.unmount();

    store.dispatch(setUser({ user: makeUser({ primphysician: 'Dr. Rahim' }) }));
    const second = renderProfile();
    expect(screen.getByText('Dr. Rahim')).toBeInTheDocument();
    second.unmount();

    store.dispatch(setUser({ user: makeUser({ role: 'healthProvider', specialization: null }) }));
    const third = renderProfile();
    expect(screen.queryByText('Specialization')).not.toBeInTheDocument();
    third.unmount();

    store.dispatch(setUser({ user: makeUser({ role: 'healthProvider', specialization: 'Radiology' }) }));
    renderProfile();
    expect(screen.getByText('Radiology')).toBeInTheDocument();
  });

  it.each(['Asia/Karachi', 'America/Los_Angeles'])(
    'shows the date of birth 1990-01-01 as 1 January 1990 in the browser time zone %s',
    async (tz) => {
      process.env.TZ = tz;
      stubFetch(() => undefined);
      store.dispatch(setUser({ user: makeUser({ dob: '1990-01-01' }), token: 'tok' }));
      renderProfile();
      expect(await screen.findByText('1 January 1990')).toBeInTheDocument();
    },
  );

  it('sends the gender lower-cased from the Edit user modal and merges the answer into the session', async () => {
    const success = vi.spyOn(toast, 'success');
    let sent: Record<string, unknown> | undefined;
    const fetchMock = stubFetch((url, init) => {
      if (url.pathname === '/api/users/profile' && init?.method === 'PUT') {
        sent = JSON.parse(String(init.body)) as Record<string, unknown>;
        return jsonResponse(200, {
          success: true,
          message: 'Profile updated successfully!',
          data: makeUser({ gender: 'female', city: 'Lahore' }),
        });
      }
      return undefined;
    });
    store.dispatch(setUser({ user: makeUser(), token: 'tok' }));
    renderProfile();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Edit Profile' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Edit user' }));
    await user.click(dialog.getByRole('combobox', { name: 'Gender' }));
    await user.click(screen.getByRole('option', { name: 'Female' }));
    await user.type(dialog.getByRole('textbox', { name: 'City' }), 'Lahore');
    await user.click(dialog.getByRole('button', { name: 'Save changes' }));

    await waitFor(() => expect(success).toHaveBeenCalledWith('Profile updated successfully!'));
    expect(sent).toMatchObject({ gender: 'female', city: 'Lahore', firstname: 'Amina' });
    // A patient's form carries no provider fields, which the server would refuse.
    expect(sent).not.toHaveProperty('licensenumber');
    expect(store.getState().session.user).toMatchObject({ gender: 'female', city: 'Lahore' });
    expect(store.getState().session.token).toBe('tok');
    expect(
      new Headers(fetchMock.mock.calls.find(([u]) => String(u) === '/api/users/profile')![1]?.headers).get(
        'Authorization',
      ),
    ).toBe('Bearer tok');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it("toasts each field error as 'field: message' and shows it under the field", async () => {
    const error = vi.spyOn(toast, 'error');
    stubFetch((url, init) =>
      url.pathname === '/api/users/profile' && init?.method === 'PUT'
        ? jsonResponse(400, {
            success: false,
            message: 'Validation failed',
            errors: [{ field: 'phone', message: 'Too long' }],
          })
        : undefined,
    );
    store.dispatch(setUser({ user: makeUser(), token: 'tok' }));
    renderProfile();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Edit Profile' }));
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(error).toHaveBeenCalledWith('phone: Too long', undefined));
    expect(screen.getByRole('textbox', { name: 'Phone' })).toHaveAccessibleDescription('Too long');
    expect(screen.getByRole('dialog', { name: 'Edit user' })).toBeInTheDocument();
  });

  it('deletes the own account with the password, clears the session and goes home', async () => {
    let sent: unknown;
    stubFetch((url, init) => {
      if (url.pathname === '/api/users/profile' && init?.method === 'DELETE') {
        sent = JSON.parse(String(init.body));
        return jsonResponse(200, { success: true, message: 'Your account has been deleted', data: null });
      }
      return undefined;
    });
    store.dispatch(setUser({ user: makeUser(), token: 'tok' }));
    renderProfile();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Delete my account' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Delete your account?' }));
    expect(dialog.getByText(/audit trail are kept/)).toBeInTheDocument();
    await user.type(dialog.getByLabelText(/^Password/), 'my-long-password');
    await user.click(dialog.getByRole('button', { name: 'Delete my account' }));
    expect(await screen.findByRole('heading', { name: 'Home page' })).toBeInTheDocument();
    expect(sent).toEqual({ password: 'my-long-password' });
    expect(store.getState().session).toEqual({ token: null, user: null });
  });
});

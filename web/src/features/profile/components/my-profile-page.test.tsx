import { ApiPaths, type PublicSettings, type UpdateProfileBody, type User } from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { clearSession, setUser, updateProfile } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, failure, ok } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { makeUser, renderRoutes } from '../../../testing/test-utils';
import { MyProfilePage } from './my-profile-page';

const settings = {
  displayLocale: 'en-PK',
  displayTimeZone: 'Asia/Karachi',
  maxUploadMb: 10,
  maxImportFiles: 2000,
  maxImportMb: 2048,
};
const originalTz = process.env.TZ;

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
  beforeEach(() => {
    store.dispatch(clearSession());
    server.use(api.get<PublicSettings>('/appsetting/public', () => ok(settings)));
  });
  afterEach(() => {
    process.env.TZ = originalTz;
  });

  it("shows the header, the four sections and 'N/A' for every missing value", async () => {
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

  it('waits for the whole profile when the session holds only its stored part (after a reload)', async () => {
    // As rehydrated: the user without personal fields, not yet reloaded by the shell.
    store.dispatch(updateProfile({ id: 'u1', email: 'amina@example.test', role: 'patient' } as never));
    renderProfile();
    expect(screen.queryByRole('button', { name: 'Edit Profile' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Personal Information' })).not.toBeInTheDocument();
    store.dispatch(setUser({ user: makeUser({ bloodgroup: 'O+' }) }));
    expect(await screen.findByRole('button', { name: 'Edit Profile' })).toBeInTheDocument();
  });

  it('shows the primary physician of a patient and the specialization of a provider only when present', () => {
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
      store.dispatch(setUser({ user: makeUser({ dob: '1990-01-01' }), token: 'tok' }));
      renderProfile();
      expect(await screen.findByText('1 January 1990')).toBeInTheDocument();
    },
  );

  it('sends the gender lower-cased from the Edit user modal and merges the answer into the session', async () => {
    const success = vi.spyOn(toast, 'success');
    let sent: UpdateProfileBody | undefined;
    let authorization: string | null = null;
    server.use(
      api.put<User, UpdateProfileBody>(ApiPaths.profile, async ({ request }) => {
        sent = await request.json();
        authorization = request.headers.get('Authorization');
        return ok(makeUser({ gender: 'female', city: 'Lahore' }), 'Profile updated successfully!');
      }),
    );
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
    expect(authorization).toBe('Bearer tok');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it("toasts each field error as 'field: message' and shows it under the field", async () => {
    const error = vi.spyOn(toast, 'error');
    server.use(
      api.put(ApiPaths.profile, () =>
        failure(400, 'Validation failed', { errors: [{ field: 'phone', message: 'Too long' }] }),
      ),
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
    server.use(
      api.delete<null>(ApiPaths.profile, async ({ request }) => {
        sent = await request.json();
        return ok(null, 'Your account has been deleted');
      }),
    );
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

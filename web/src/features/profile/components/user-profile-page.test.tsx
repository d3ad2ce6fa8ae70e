import type { PublicSettings, UserProfileView } from '@medshare/contracts';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, failure, ok } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { makeUser, renderRoutes } from '../../../testing/test-utils';
import { UserProfilePage } from './user-profile-page';

const otherId = '7a2b3c4d-1111-4222-8333-444455556666';

function stubUser(status: number, data?: UserProfileView) {
  server.use(
    api.get<PublicSettings>('/appsetting/public', () => failure(500, 'down')),
    api.get<UserProfileView>(`/users/${otherId}`, () =>
      status === 200 && data ? ok(data) : failure(status, 'User not found'),
    ),
  );
}

function renderAt(path: string) {
  return renderRoutes(
    [
      { path: '/user-profile/:id?', element: <UserProfilePage /> },
      { path: '/profile', element: <h1>My profile page</h1> },
    ],
    path,
  );
}

describe('User profile', () => {
  beforeEach(() => {
    store.dispatch(clearSession());
    store.dispatch(setUser({ user: makeUser({ role: 'patient' }), token: 'tok' }));
  });

  it('shows only what a public view carries: name, role and specialization', async () => {
    stubUser(200, {
      view: 'public',
      id: otherId,
      firstname: 'Bilal',
      lastname: 'Ahmed',
      role: 'healthProvider',
      specialization: 'Cardiology',
    });
    renderAt(`/user-profile/${otherId}`);
    expect(await screen.findByText('Cardiology')).toBeInTheDocument();
    expect(screen.getByText('Health Provider')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Address' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'User Bio' })).not.toBeInTheDocument();
    expect(screen.queryByText('License number')).not.toBeInTheDocument();
    expect(screen.queryByText('N/A')).not.toBeInTheDocument();
  });

  it("shows a care view's missing values as 'N/A' and never a tax id", async () => {
    stubUser(200, {
      view: 'care',
      id: otherId,
      firstname: 'Zara',
      lastname: 'Iqbal',
      username: 'ziqbal',
      email: 'zara@example.test',
      role: 'patient',
      phone: null,
      dob: '2001-12-31',
      gender: 'female',
      address: null,
      city: 'Lahore',
      state: null,
      country: null,
      zipcode: null,
      bio: null,
      licensenumber: null,
      specialization: null,
      insurancenumber: null,
      bloodgroup: 'A+',
      primphysician: null,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    renderAt(`/user-profile/${otherId}`);
    expect(await screen.findByText('31 December 2001')).toBeInTheDocument();
    expect(screen.queryByText('Tax ID')).not.toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Address' })).getAllByText('N/A')).toHaveLength(4);
    expect(within(screen.getByRole('region', { name: 'User Bio' })).getByText('N/A')).toBeInTheDocument();
  });

  it('answers a 404 with a friendly not-found message and a way back', async () => {
    stubUser(404);
    renderAt(`/user-profile/${otherId}`);
    expect(await screen.findByText('This user could not be found')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to my profile' })).toHaveAttribute('href', '/profile');
  });

  it('sends /user-profile without an id to the own profile', async () => {
    stubUser(404);
    renderAt('/user-profile');
    expect(await screen.findByRole('heading', { name: 'My profile page' })).toBeInTheDocument();
  });
});

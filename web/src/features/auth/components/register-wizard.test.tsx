import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { jsonResponse, makeUser, renderWithProviders } from '../../../testing/test-utils';
import { RegisterWizard } from './register-wizard';

describe('RegisterWizard', () => {
  it('requires a role before Next', async () => {
    const user = userEvent.setup();
    renderWithProviders(<RegisterWizard />, '/register');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByText('Please select a role to continue.')).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: /Patient/ })).toBeInTheDocument();
    expect(screen.queryByLabelText(/First name/)).not.toBeInTheDocument();

    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByLabelText(/First name/)).toBeInTheDocument();
  });

  it('offers Back from the second step on', async () => {
    const user = userEvent.setup();
    renderWithProviders(<RegisterWizard />, '/register');
    expect(screen.getByRole('button', { name: 'Back' })).toBeDisabled();
    await user.click(screen.getByRole('radio', { name: /Health Provider/ }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(screen.getByRole('radio', { name: /Health Provider/ })).toBeChecked();
  });

  it('does not submit when Next brings up the last step', async () => {
    const fetchMock = vi.fn<typeof fetch>();
    vi.stubGlobal('fetch', fetchMock);
    const user = userEvent.setup();
    renderWithProviders(<RegisterWizard />, '/register');
    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    for (let step = 0; step < 3; step += 1) await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByLabelText(/Username/)).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('sends the spec payload with active=true and without confirmPassword', async () => {
    const fetchMock = vi.fn<typeof fetch>().mockResolvedValue(
      jsonResponse(201, {
        success: true,
        message: 'Registration successful!',
        data: { user: makeUser(), pending: false },
      }),
    );
    vi.stubGlobal('fetch', fetchMock);
    const user = userEvent.setup();
    renderWithProviders(<RegisterWizard />, '/register');

    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.type(screen.getByLabelText(/First name/), 'Amina');
    await user.type(screen.getByLabelText(/Last name/), 'Khan');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.type(screen.getByLabelText('Primary physician'), 'Dr. Rivera');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.type(screen.getByLabelText(/Username/), 'akhan');
    await user.type(screen.getByLabelText(/^Email/), 'amina@example.test');
    await user.type(screen.getByLabelText(/^Password/), 'correct horse battery');
    await user.type(screen.getByLabelText(/^Confirm password/), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Register' }));

    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/auth/register');
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    expect(body).toMatchObject({
      role: 'patient',
      active: true,
      firstname: 'Amina',
      lastname: 'Khan',
      username: 'akhan',
      email: 'amina@example.test',
      password: 'correct horse battery',
      primphysician: 'Dr. Rivera',
    });
    expect(body).not.toHaveProperty('confirmPassword');
    expect(body).not.toHaveProperty('licensenumber');
    expect(await screen.findByText(/We have e-mailed you a 6-digit code/)).toBeInTheDocument();
    expect(window.localStorage.getItem('userEmail')).toBe('amina@example.test');
  });
});

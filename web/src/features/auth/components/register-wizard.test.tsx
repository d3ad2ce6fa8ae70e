import { ApiPaths, type RegisterBody, type RegisterResponseDataSchema } from '@medshare/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { api, failure, ok } from '../../../testing/handlers';
import { recordRequests, server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
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
    const requests = recordRequests();
    const user = userEvent.setup();
    renderWithProviders(<RegisterWizard />, '/register');
    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    for (let step = 0; step < 3; step += 1) await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByLabelText(/Username/)).toBeInTheDocument();
    expect(requests).toEqual([]);
  });

  it('sends the register payload of docs/product.md › Calls with active=true and without confirmPassword', async () => {
    const bodies: RegisterBody[] = [];
    server.use(
      api.post<z.infer<typeof RegisterResponseDataSchema>, RegisterBody>(ApiPaths.register, async ({ request }) => {
        bodies.push(await request.json());
        return ok({ user: makeUser(), pending: false }, 'Registration successful!', 201);
      }),
    );
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

    await waitFor(() => expect(bodies).toHaveLength(1));
    const body = bodies[0];
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

  it("shows a refused field under its input in words, never zod's text, on the step that holds it", async () => {
    server.use(
      api.post(ApiPaths.register, () =>
        failure(400, 'Validation failed', {
          code: 'validation_failed',
          errors: [
            { field: 'firstname', code: 'too_big', message: 'Too big: expected string to have <=50 characters' },
          ],
        }),
      ),
    );
    const user = userEvent.setup();
    renderWithProviders(<RegisterWizard />, '/register');
    await user.click(screen.getByRole('radio', { name: /Patient/ }));
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.type(screen.getByLabelText(/First name/), 'Amina');
    await user.type(screen.getByLabelText(/Last name/), 'Khan');
    for (let step = 0; step < 2; step += 1) await user.click(screen.getByRole('button', { name: 'Next' }));
    await user.type(screen.getByLabelText(/Username/), 'akhan');
    await user.type(screen.getByLabelText(/^Email/), 'amina@example.test');
    await user.type(screen.getByLabelText(/^Password/), 'correct horse battery');
    await user.type(screen.getByLabelText(/^Confirm password/), 'correct horse battery');
    await user.click(screen.getByRole('button', { name: 'Register' }));

    // Back on the step with First name, the line under it is a sentence.
    const firstName = await screen.findByLabelText(/First name/);
    expect(firstName).toHaveAccessibleDescription('First name is too long.');
    expect(screen.queryByText(/Too big|<=50/)).not.toBeInTheDocument();
  });
});

import { ApiPaths } from '@medshare/contracts';
import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { api, ok } from '../../../testing/handlers';
import { recordRequests, server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
import { ForgotPasswordFlow } from './forgot-password-flow';

async function reachStageTwo() {
  const requests = recordRequests();
  const answer = () => ok(null, 'If an account exists…');
  server.use(api.post<null>(ApiPaths.forgotPassword, answer), api.post<null>(ApiPaths.resetPassword, answer));
  const user = userEvent.setup();
  renderWithProviders(<ForgotPasswordFlow />, '/forgot-password');
  await user.type(screen.getByRole('textbox', { name: 'Email' }), 'amina@example.test');
  await user.click(screen.getByRole('button', { name: 'Send Code' }));
  await screen.findByRole('heading', { name: 'Reset your password' });
  return { user, requests };
}

describe('ForgotPasswordFlow', () => {
  it('asks for an e-mail before sending a code', async () => {
    const error = vi.spyOn(toast, 'error');
    const user = userEvent.setup();
    renderWithProviders(<ForgotPasswordFlow />, '/forgot-password');
    await user.click(screen.getByRole('button', { name: 'Send Code' }));
    expect(error).toHaveBeenCalledWith('Please enter a valid email.');
  });

  it('checks the code, then empty passwords, then the match, before calling the server', async () => {
    const error = vi.spyOn(toast, 'error');
    const { user, requests } = await reachStageTwo();
    const reset = () => user.click(screen.getByRole('button', { name: 'Reset Password' }));

    await reset();
    expect(error).toHaveBeenLastCalledWith('Please enter a valid 6-digit OTP.');
    fireEvent.paste(screen.getByLabelText('Digit 1 of 6'), { clipboardData: { getData: () => '123456' } });
    await reset();
    expect(error).toHaveBeenLastCalledWith('Password fields cannot be empty.');
    await user.type(screen.getByLabelText(/^New password/), 'a long new password');
    await user.type(screen.getByLabelText(/^Confirm new password/), 'another password');
    await reset();
    expect(error).toHaveBeenLastCalledWith('Passwords do not match!');
    expect(requests).toHaveLength(1);
  });

  it('does not send a password the shared rules refuse, and says why on the field', async () => {
    const { user, requests } = await reachStageTwo();
    fireEvent.paste(screen.getByLabelText('Digit 1 of 6'), { clipboardData: { getData: () => '123456' } });
    await user.type(screen.getByLabelText(/^New password/), 'amina-was-here');
    await user.type(screen.getByLabelText(/^Confirm new password/), 'amina-was-here');
    await user.click(screen.getByRole('button', { name: 'Reset Password' }));
    expect(await screen.findByText('Choose a password that meets every rule below.')).toBeInTheDocument();
    expect(requests).toHaveLength(1);
  });

  it('sends {email, otp, newPassword} and shows the success stage', async () => {
    const { user, requests } = await reachStageTwo();
    fireEvent.paste(screen.getByLabelText('Digit 1 of 6'), { clipboardData: { getData: () => '123456' } });
    await user.type(screen.getByLabelText(/^New password/), 'a long new password');
    await user.type(screen.getByLabelText(/^Confirm new password/), 'a long new password');
    await user.click(screen.getByRole('button', { name: 'Reset Password' }));
    expect(await screen.findByRole('heading', { name: 'Password Changed!' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Login' })).toHaveAttribute('href', '/login');
    const reset = requests[1]!;
    expect(new URL(reset.url).pathname).toBe('/api/auth/reset-password');
    expect(await reset.json()).toEqual({
      email: 'amina@example.test',
      otp: '123456',
      newPassword: 'a long new password',
    });
  });

  it('falls back to the wording of docs/product.md › Messages and errors when the server gives no message', async () => {
    const error = vi.spyOn(toast, 'error');
    // A proxy's page, not the API's envelope: outside the typed handlers on purpose.
    server.use(
      http.post(`/api${ApiPaths.forgotPassword}`, () => HttpResponse.html('<html>502</html>', { status: 502 })),
    );
    const user = userEvent.setup();
    renderWithProviders(<ForgotPasswordFlow />, '/forgot-password');
    await user.type(screen.getByRole('textbox', { name: 'Email' }), 'amina@example.test');
    await user.click(screen.getByRole('button', { name: 'Send Code' }));
    await vi.waitFor(() =>
      expect(error).toHaveBeenCalledWith('Something went wrong. from handleForgotPassword', undefined),
    );
  });
});

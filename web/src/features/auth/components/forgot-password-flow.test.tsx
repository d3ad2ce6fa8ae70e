import { fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { jsonResponse, renderWithProviders } from '../../../testing/test-utils';
import { ForgotPasswordFlow } from './forgot-password-flow';

async function reachStageTwo() {
  const fetchMock = vi
    .fn<typeof fetch>()
    .mockImplementation(async () => jsonResponse(200, { success: true, message: 'If an account exists…', data: null }));
  vi.stubGlobal('fetch', fetchMock);
  const user = userEvent.setup();
  renderWithProviders(<ForgotPasswordFlow />, '/forgot-password');
  await user.type(screen.getByRole('textbox', { name: 'Email' }), 'amina@example.test');
  await user.click(screen.getByRole('button', { name: 'Send Code' }));
  await screen.findByRole('heading', { name: 'Reset your password' });
  return { user, fetchMock };
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
    const { user, fetchMock } = await reachStageTwo();
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
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('sends {email, otp, newPassword} and shows the success stage', async () => {
    const { user, fetchMock } = await reachStageTwo();
    fireEvent.paste(screen.getByLabelText('Digit 1 of 6'), { clipboardData: { getData: () => '123456' } });
    await user.type(screen.getByLabelText(/^New password/), 'a long new password');
    await user.type(screen.getByLabelText(/^Confirm new password/), 'a long new password');
    await user.click(screen.getByRole('button', { name: 'Reset Password' }));
    expect(await screen.findByRole('heading', { name: 'Password Changed!' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Login' })).toHaveAttribute('href', '/login');
    const [url, init] = fetchMock.mock.calls[1]!;
    expect(url).toBe('/api/auth/reset-password');
    expect(JSON.parse(String(init?.body))).toEqual({
      email: 'amina@example.test',
      otp: '123456',
      newPassword: 'a long new password',
    });
  });

  it('falls back to the spec wording when the server gives no message', async () => {
    const error = vi.spyOn(toast, 'error');
    vi.stubGlobal('fetch', vi.fn<typeof fetch>().mockResolvedValue(new Response('<html>502</html>', { status: 502 })));
    const user = userEvent.setup();
    renderWithProviders(<ForgotPasswordFlow />, '/forgot-password');
    await user.type(screen.getByRole('textbox', { name: 'Email' }), 'amina@example.test');
    await user.click(screen.getByRole('button', { name: 'Send Code' }));
    await vi.waitFor(() =>
      expect(error).toHaveBeenCalledWith('Something went wrong. from handleForgotPassword', undefined),
    );
  });
});

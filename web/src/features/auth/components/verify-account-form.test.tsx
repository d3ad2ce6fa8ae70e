import { AuthMessages } from '@medshare/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { clearSession } from '../../../lib/session';
import { store } from '../../../lib/store';
import { jsonResponse, makeUser, renderRoutes } from '../../../testing/test-utils';
import { VerifyAccountForm } from './verify-account-form';

const routes = [
  { path: '/verify-account', element: <VerifyAccountForm /> },
  { path: '/view-images', element: <h1>Images page</h1> },
  { path: '/dashboard', element: <h1>Dashboard page</h1> },
  { path: '/login', element: <h1>Login page</h1> },
];

function pasteCode(code: string) {
  fireEvent.paste(screen.getByLabelText('Digit 1 of 6'), { clipboardData: { getData: () => code } });
}

describe('VerifyAccountForm', () => {
  afterEach(() => {
    store.dispatch(clearSession());
    vi.useRealTimers();
  });

  it('asks for the e-mail when none was remembered', () => {
    renderRoutes(routes, '/verify-account');
    expect(screen.getByRole('textbox', { name: 'Email' })).toBeInTheDocument();
  });

  it('refuses to verify without a valid e-mail and all six digits', async () => {
    const error = vi.spyOn(toast, 'error');
    const fetchMock = vi.fn<typeof fetch>();
    vi.stubGlobal('fetch', fetchMock);
    window.localStorage.setItem('userEmail', 'amina@example.test');
    const user = userEvent.setup();
    renderRoutes(routes, '/verify-account');
    pasteCode('12345');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(error).toHaveBeenCalledWith('Please enter a valid email and complete the OTP.');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('signs a patient in with the remembered e-mail and goes to /view-images', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const fetchMock = vi.fn<typeof fetch>().mockResolvedValue(
      jsonResponse(200, {
        success: true,
        message: 'Account verified',
        data: { token: 'tok', user: makeUser({ role: 'patient' }), expiresAt: '2026-12-01T00:00:00Z' },
      }),
    );
    vi.stubGlobal('fetch', fetchMock);
    window.localStorage.setItem('userEmail', 'amina@example.test');
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const { router } = renderRoutes(routes, '/verify-account');
    pasteCode('482913');
    await user.click(screen.getByRole('button', { name: 'Verify' }));

    await waitFor(() => expect(store.getState().session.token).toBe('tok'));
    const [, init] = fetchMock.mock.calls[0]!;
    expect(JSON.parse(String(init?.body))).toEqual({ email: 'amina@example.test', code: '482913' });
    expect(new Headers(init?.headers).has('Authorization')).toBe(false);
    vi.advanceTimersByTime(2000);
    expect(await screen.findByRole('heading', { name: 'Images page' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/view-images');
  });

  it('warns a pending provider and sends them to /login without a session', async () => {
    const warning = vi.spyOn(toast, 'warning');
    vi.stubGlobal(
      'fetch',
      vi
        .fn<typeof fetch>()
        .mockResolvedValue(
          jsonResponse(200, { success: true, message: AuthMessages.providerUnderReview, data: { pending: true } }),
        ),
    );
    window.localStorage.setItem('userEmail', 'dr@example.test');
    const user = userEvent.setup();
    renderRoutes(routes, '/verify-account');
    pasteCode('482913');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'Login page' })).toBeInTheDocument();
    expect(warning).toHaveBeenCalledWith(AuthMessages.providerUnderReview, expect.anything());
    expect(store.getState().session.token).toBeNull();
  });

  it('shows field errors as "field: message"', async () => {
    const error = vi.spyOn(toast, 'error');
    vi.stubGlobal(
      'fetch',
      vi.fn<typeof fetch>().mockResolvedValue(
        jsonResponse(400, {
          success: false,
          message: 'Validation failed',
          errors: [{ field: 'code', message: 'Code must be exactly 6 digits' }],
        }),
      ),
    );
    window.localStorage.setItem('userEmail', 'amina@example.test');
    const user = userEvent.setup();
    renderRoutes(routes, '/verify-account');
    pasteCode('482913');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(error).toHaveBeenCalledWith('code: Code must be exactly 6 digits', undefined));
  });
});

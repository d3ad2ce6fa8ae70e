import { ApiPaths, AuthMessages, type ConfirmResponseData } from '@medshare/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { rememberReturnPath, takeReturnPath } from '../../../lib/return-path';
import { clearSession } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, failure, ok } from '../../../testing/handlers';
import { recordRequests, server } from '../../../testing/server';
import { makeUser, renderRoutes } from '../../../testing/test-utils';
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
    const requests = recordRequests();
    window.localStorage.setItem('userEmail', 'amina@example.test');
    const user = userEvent.setup();
    renderRoutes(routes, '/verify-account');
    pasteCode('12345');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(error).toHaveBeenCalledWith('Please enter a valid email and complete the OTP.');
    expect(requests).toEqual([]);
  });

  it('signs a patient in with the remembered e-mail and goes to /view-images', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const requests = recordRequests();
    server.use(
      api.post<ConfirmResponseData>(ApiPaths.confirm, () =>
        ok(
          { token: 'tok', user: makeUser({ role: 'patient' }), expiresAt: '2026-12-01T00:00:00Z' },
          'Account verified',
        ),
      ),
    );
    window.localStorage.setItem('userEmail', 'amina@example.test');
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const { router } = renderRoutes(routes, '/verify-account');
    pasteCode('482913');
    await user.click(screen.getByRole('button', { name: 'Verify' }));

    await waitFor(() => expect(store.getState().session.token).toBe('tok'));
    const [sent] = requests;
    expect(await sent!.json()).toEqual({ email: 'amina@example.test', code: '482913' });
    expect(sent!.headers.has('Authorization')).toBe(false);
    vi.advanceTimersByTime(2000);
    expect(await screen.findByRole('heading', { name: 'Images page' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/view-images');
  });

  it('returns to the page a link opened before signing in (a share mail’s Verify link), once', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    server.use(
      api.post<ConfirmResponseData>(ApiPaths.confirm, () =>
        ok({ token: 'tok', user: makeUser({ role: 'healthProvider' }), expiresAt: '2026-12-01T00:00:00Z' }),
      ),
    );
    rememberReturnPath('/view-images?verify=66666666-6666-4666-8666-666666666666');
    window.localStorage.setItem('userEmail', 'bilal@example.test');
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const { router } = renderRoutes(routes, '/verify-account');
    pasteCode('482913');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(store.getState().session.token).toBe('tok'));
    vi.advanceTimersByTime(2000);
    expect(await screen.findByRole('heading', { name: 'Images page' })).toBeInTheDocument();
    expect(router.state.location.search).toBe('?verify=66666666-6666-4666-8666-666666666666');
    expect(takeReturnPath()).toBeNull();
  });

  it('warns a pending provider and sends them to /login without a session', async () => {
    const warning = vi.spyOn(toast, 'warning');
    server.use(
      api.post<ConfirmResponseData>(ApiPaths.confirm, () => ok({ pending: true }, AuthMessages.providerUnderReview)),
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

  it('ends the sign-in when the code is locked: the message, then /login for the password again', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const error = vi.spyOn(toast, 'error');
    server.use(api.post(ApiPaths.confirm, () => failure(429, AuthMessages.signInCodeLocked, { code: 'rate_limited' })));
    window.localStorage.setItem('userEmail', 'amina@example.test');
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const { router } = renderRoutes(routes, '/verify-account');
    pasteCode('482913');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(error).toHaveBeenCalledWith(AuthMessages.signInCodeLocked, undefined));
    expect(screen.getByRole('button', { name: 'Verify' })).toBeDisabled();
    vi.advanceTimersByTime(2000);
    expect(await screen.findByRole('heading', { name: 'Login page' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('shows field errors as "field: message"', async () => {
    const error = vi.spyOn(toast, 'error');
    server.use(
      api.post(ApiPaths.confirm, () =>
        failure(400, 'Validation failed', {
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

import type { User } from '@medshare/contracts';
import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api as handlers, failure, ok } from '../testing/handlers';
import { recordRequests, server } from '../testing/server';
import { makeUser } from '../testing/test-utils';
import { ApiError, api } from './api-client';
import * as navigation from './navigation';
import { clearSession, setUser } from './session';
import { store } from './store';

/** The profile read answers `status` with the error envelope carrying `message`. */
const profileRefused = (status: number, message: string) =>
  server.use(handlers.get<User>('/users/profile', () => failure(status, message)));

describe('api client', () => {
  let navigateSpy: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    store.dispatch(setUser({ user: makeUser(), token: 'token-123' }));
    navigateSpy = vi.spyOn(navigation, 'hardNavigate').mockImplementation(() => {});
    vi.spyOn(navigation, 'currentPath').mockReturnValue('/view-images');
  });

  afterEach(() => {
    store.dispatch(clearSession());
  });

  it('sends the bearer token from the session in a header, never in the URL', async () => {
    const requests = recordRequests();
    server.use(handlers.get<{ ok: number }>('/users/profile', () => ok({ ok: 1 })));
    const result = await api.get<{ ok: number }>('/users/profile');
    expect(result.data).toEqual({ ok: 1 });
    expect(requests).toHaveLength(1);
    const url = new URL(requests[0]!.url);
    expect(url.pathname).toBe('/api/users/profile');
    expect(url.search).toBe('');
    expect(requests[0]!.headers.get('Authorization')).toBe('Bearer token-123');
  });

  it('clears the session and redirects to /login on a 401 "Token expired"', async () => {
    profileRefused(401, 'Token expired');
    await expect(api.get('/users/profile')).rejects.toBeInstanceOf(ApiError);
    expect(store.getState().session.token).toBeNull();
    expect(store.getState().session.user).toBeNull();
    expect(navigateSpy).toHaveBeenCalledWith('/login');
    expect(window.sessionStorage.getItem('medshare:sessionEnded')).toBe('1');
  });

  it('leaves with a full page load even when the cleared session has already moved the router to /login', async () => {
    profileRefused(401, 'Token expired');
    // A signed-in page's guard navigates as soon as the session is cleared, before the client looks.
    vi.mocked(navigation.currentPath).mockImplementation(() =>
      store.getState().session.token ? '/view-images' : '/login',
    );
    await expect(api.get('/users/profile')).rejects.toBeInstanceOf(ApiError);
    expect(navigateSpy).toHaveBeenCalledWith('/login');
  });

  it.each(['Unauthenticated', 'Authentication failed', 'Invalid token'])(
    'ends the session on a 401 "%s"',
    async (message) => {
      profileRefused(401, message);
      await expect(api.get('/users/profile')).rejects.toThrow(message);
      expect(store.getState().session.token).toBeNull();
    },
  );

  it('keeps the session on a 401 that does not say the session ended', async () => {
    profileRefused(401, 'Wrong current password');
    await expect(api.get('/users/profile')).rejects.toThrow('Wrong current password');
    expect(store.getState().session.token).toBe('token-123');
    expect(navigateSpy).not.toHaveBeenCalled();
  });

  it('sends no token with sign-in calls, so their 401 stays an answer for the form', async () => {
    const requests = recordRequests();
    server.use(handlers.post('/auth/login', () => failure(401, 'Invalid email or password')));
    await expect(api.post('/auth/login', { email: 'a@b.test', password: 'x' }, { auth: false })).rejects.toThrow(
      'Invalid email or password',
    );
    expect(requests).toHaveLength(1);
    expect(requests[0]!.headers.has('Authorization')).toBe(false);
    expect(store.getState().session.token).toBe('token-123');
    expect(navigateSpy).not.toHaveBeenCalled();
  });

  it('throws the status, message and field errors of an error envelope', async () => {
    server.use(
      handlers.post('/auth/register', () =>
        failure(409, 'Conflict', { errors: [{ field: 'email', message: 'Email is already registered' }] }),
      ),
    );
    const error = await api.post('/auth/register', {}, { auth: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 409,
      message: 'Conflict',
      errors: [{ field: 'email', message: 'Email is already registered' }],
    });
  });

  it('turns a network failure into an ApiError without a server message', async () => {
    server.use(handlers.get('/users/profile', () => HttpResponse.error()));
    const error = await api.get('/users/profile').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 0, message: '' });
  });
});

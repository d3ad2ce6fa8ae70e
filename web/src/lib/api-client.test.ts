import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, makeUser } from '../testing/test-utils';
import { ApiError, api } from './api-client';
import * as navigation from './navigation';
import { clearSession, setUser } from './session';
import { store } from './store';

function mockFetch(response: Response) {
  const fetchMock = vi.fn<typeof fetch>().mockResolvedValue(response);
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

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
    const fetchMock = mockFetch(jsonResponse(200, { success: true, data: { ok: 1 } }));
    const result = await api.get<{ ok: number }>('/users/profile');
    expect(result.data).toEqual({ ok: 1 });
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/users/profile');
    expect(new Headers(init?.headers).get('Authorization')).toBe('Bearer token-123');
  });

  it('clears the session and redirects to /login on a 401 "Token expired"', async () => {
    mockFetch(jsonResponse(401, { success: false, message: 'Token expired' }));
    await expect(api.get('/users/profile')).rejects.toBeInstanceOf(ApiError);
    expect(store.getState().session.token).toBeNull();
    expect(store.getState().session.user).toBeNull();
    expect(navigateSpy).toHaveBeenCalledWith('/login');
    expect(window.sessionStorage.getItem('medshare:sessionEnded')).toBe('1');
  });

  it.each(['Unauthenticated', 'Authentication failed', 'Invalid token'])(
    'ends the session on a 401 "%s"',
    async (message) => {
      mockFetch(jsonResponse(401, { success: false, message }));
      await expect(api.get('/users/profile')).rejects.toThrow(message);
      expect(store.getState().session.token).toBeNull();
    },
  );

  it('keeps the session on a 401 that does not say the session ended', async () => {
    mockFetch(jsonResponse(401, { success: false, message: 'Wrong current password' }));
    await expect(api.get('/users/profile')).rejects.toThrow('Wrong current password');
    expect(store.getState().session.token).toBe('token-123');
    expect(navigateSpy).not.toHaveBeenCalled();
  });

  it('sends no token with sign-in calls, so their 401 stays an answer for the form', async () => {
    const fetchMock = mockFetch(jsonResponse(401, { success: false, message: 'Invalid email or password' }));
    await expect(api.post('/auth/login', { email: 'a@b.test', password: 'x' }, { auth: false })).rejects.toThrow(
      'Invalid email or password',
    );
    expect(new Headers(fetchMock.mock.calls[0]![1]?.headers).has('Authorization')).toBe(false);
    expect(store.getState().session.token).toBe('token-123');
    expect(navigateSpy).not.toHaveBeenCalled();
  });

  it('throws the status, message and field errors of an error envelope', async () => {
    mockFetch(
      jsonResponse(409, {
        success: false,
        message: 'Conflict',
        errors: [{ field: 'email', message: 'Email is already registered' }],
      }),
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
    vi.stubGlobal('fetch', vi.fn<typeof fetch>().mockRejectedValue(new TypeError('Failed to fetch')));
    const error = await api.get('/users/profile').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, message: '' });
  });
});

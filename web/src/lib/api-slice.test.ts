import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, failure, ok } from '../testing/handlers';
import { recordRequests, server } from '../testing/server';
import { makeUser } from '../testing/test-utils';
import { ApiError } from './api-client';
import { apiSlice, dataOf } from './api-slice';
import * as navigation from './navigation';
import { clearSession, setUser } from './session';
import { store } from './store';

/** A test-only endpoint: what any feature's query goes through. */
const probeApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    probe: build.query<{ owner: string }, void>({
      query: () => ({ url: '/probe' }),
      transformResponse: dataOf<{ owner: string }>,
    }),
  }),
});

function cachedProbe() {
  return probeApi.endpoints.probe.select()(store.getState()).data;
}

describe('api slice', () => {
  beforeEach(() => {
    store.dispatch(setUser({ user: makeUser(), token: 'token-a' }));
    vi.spyOn(navigation, 'hardNavigate').mockImplementation(() => {});
    vi.spyOn(navigation, 'currentPath').mockReturnValue('/dashboard');
  });

  afterEach(() => {
    store.dispatch(clearSession());
  });

  it('sends the session bearer header and unwraps the envelope', async () => {
    server.use(api.get<{ owner: string }>('/probe', () => ok({ owner: 'a' })));
    const requests = recordRequests();
    const result = await store.dispatch(probeApi.endpoints.probe.initiate());
    expect(result.data).toEqual({ owner: 'a' });
    expect(requests[0]!.headers.get('Authorization')).toBe('Bearer token-a');
  });

  it("empties the cache at logout, so one user's data never shows to the next", async () => {
    server.use(api.get<{ owner: string }>('/probe', () => ok({ owner: 'a' })));
    await store.dispatch(probeApi.endpoints.probe.initiate());
    expect(cachedProbe()).toEqual({ owner: 'a' });

    store.dispatch(clearSession());
    expect(cachedProbe()).toBeUndefined();
    expect(store.getState().api.queries).toEqual({});
  });

  it('empties the cache when another session replaces this one', async () => {
    server.use(api.get<{ owner: string }>('/probe', () => ok({ owner: 'a' })));
    await store.dispatch(probeApi.endpoints.probe.initiate());
    store.dispatch(setUser({ user: makeUser({ id: 'b', username: 'b' }), token: 'token-b' }));
    expect(cachedProbe()).toBeUndefined();
  });

  it('keeps the cache when the profile is reloaded within the same session', async () => {
    server.use(api.get<{ owner: string }>('/probe', () => ok({ owner: 'a' })));
    await store.dispatch(probeApi.endpoints.probe.initiate());
    store.dispatch(setUser({ user: makeUser({ firstname: 'Renamed' }) }));
    expect(cachedProbe()).toEqual({ owner: 'a' });
  });

  it('ends the session and empties the cache on a 401 "Token expired"', async () => {
    server.use(api.get<{ owner: string }>('/probe', () => ok({ owner: 'a' })));
    await store.dispatch(probeApi.endpoints.probe.initiate());
    server.use(api.get<{ owner: string }>('/probe', () => failure(401, 'Token expired')));
    await store.dispatch(probeApi.endpoints.probe.initiate(undefined, { forceRefetch: true }));
    expect(store.getState().session.token).toBeNull();
    expect(navigation.hardNavigate).toHaveBeenCalledWith('/login');
    expect(cachedProbe()).toBeUndefined();
  });

  it('fails with the same ApiError a direct call throws: status, message, field errors, code', async () => {
    server.use(
      api.get<{ owner: string }>('/probe', () =>
        failure(409, 'Conflict', { code: 'CONFLICT', errors: [{ field: 'name', message: 'Taken' }] }),
      ),
    );
    const error = await store
      .dispatch(probeApi.endpoints.probe.initiate())
      .unwrap()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 409,
      message: 'Conflict',
      code: 'CONFLICT',
      errors: [{ field: 'name', message: 'Taken' }],
    });
  });
});

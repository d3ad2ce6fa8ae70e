import type * as ReduxPersist from 'redux-persist';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PERSIST_KEY } from './stored-session';

describe('the store at start-up (lib/store.ts)', () => {
  afterEach(() => {
    localStorage.removeItem(`persist:${PERSIST_KEY}`);
    vi.doUnmock('redux-persist');
    vi.resetModules();
  });

  it('holds the stored session before redux-persist has rehydrated, so the first reads can start', async () => {
    const user = { id: 'u1', role: 'healthProvider', firstname: 'Sana', lastname: 'Khan' };
    localStorage.setItem(
      `persist:${PERSIST_KEY}`,
      JSON.stringify({ session: JSON.stringify({ token: 'a.b.c', user }), _persist: '{"version":-1}' }),
    );
    // A persistor that never rehydrates: what the store holds comes from the start-up read alone.
    vi.doMock('redux-persist', async (importOriginal) => ({
      ...(await importOriginal<typeof ReduxPersist>()),
      persistStore: () => ({ getState: () => ({ bootstrapped: false }), subscribe: () => () => undefined }),
    }));
    vi.resetModules();
    const { store } = await import('./store');
    expect(store.getState().session).toEqual({ token: 'a.b.c', user });
  });

  it('starts signed out when nothing usable is stored', async () => {
    localStorage.setItem(`persist:${PERSIST_KEY}`, '{not json');
    vi.resetModules();
    const { store } = await import('./store');
    expect(store.getState().session).toEqual({ token: null, user: null });
  });

  it('settles rehydrated() only once redux-persist has put the stored state back, and stops listening', async () => {
    // A persistor whose rehydration the test finishes by hand.
    const persist = { bootstrapped: false, listeners: new Set<() => void>() };
    vi.doMock('redux-persist', async (importOriginal) => ({
      ...(await importOriginal<typeof ReduxPersist>()),
      persistStore: () => ({
        getState: () => ({ bootstrapped: persist.bootstrapped }),
        subscribe: (listener: () => void) => {
          persist.listeners.add(listener);
          return () => persist.listeners.delete(listener);
        },
      }),
    }));
    vi.resetModules();
    const { isRehydrated, rehydrated } = await import('./store');
    let settled = false;
    const waiting = rehydrated().then(() => (settled = true));
    // A notification before the state is back does not settle it.
    for (const listener of persist.listeners) listener();
    await Promise.resolve();
    expect(isRehydrated()).toBe(false);
    expect(settled).toBe(false);
    persist.bootstrapped = true;
    for (const listener of [...persist.listeners]) listener();
    await waiting;
    expect(isRehydrated()).toBe(true);
    expect(persist.listeners.size).toBe(0);
    // Once rehydrated, at once, with nothing left listening.
    await rehydrated();
    expect(persist.listeners.size).toBe(0);
  });
});

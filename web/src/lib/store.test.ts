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

  it('writes the session to storage without its personal fields, and reads it back as incomplete', async () => {
    vi.resetModules();
    const { store, rehydrated } = await import('./store');
    const { setUser, selectUserComplete } = await import('./session');
    await rehydrated();
    const user = {
      id: 'u1',
      email: 'amina@example.test',
      username: 'akhan',
      role: 'patient',
      firstname: 'Amina',
      lastname: 'Khan',
      active: true,
      dob: '1990-01-01',
      phone: '+92 300 0000000',
      address: '1 Mall Road',
      taxid: 'TAX-77',
      insurancenumber: 'INS-123',
      bloodgroup: 'O+',
      primphysician: 'Dr. Rahim',
      bio: 'Asthma since 2004',
    };
    store.dispatch(setUser({ user: user as never, token: 'a.b.c' }));
    expect(selectUserComplete(store.getState())).toBe(true);
    await vi.waitFor(() => expect(localStorage.getItem(`persist:${PERSIST_KEY}`)).toContain('a.b.c'));
    const stored = localStorage.getItem(`persist:${PERSIST_KEY}`)!;
    for (const value of ['1990-01-01', '+92 300', '1 Mall Road', 'TAX-77', 'INS-123', 'O+', 'Dr. Rahim', 'Asthma'])
      expect(stored, value).not.toContain(value);
    const session = JSON.parse(JSON.parse(stored).session as string);
    expect(session).toEqual({
      token: 'a.b.c',
      user: {
        id: 'u1',
        email: 'amina@example.test',
        username: 'akhan',
        role: 'patient',
        firstname: 'Amina',
        lastname: 'Khan',
        active: true,
      },
      complete: false,
    });
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

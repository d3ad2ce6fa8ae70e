import { describe, expect, it } from 'vitest';
import { sessionSlice } from './session';
import { PERSIST_KEY, SESSION_SLICE, readStoredSession } from './stored-session';

describe('readStoredSession (lib/stored-session.ts)', () => {
  it('names the slice the store persists', () => {
    expect(SESSION_SLICE).toBe(sessionSlice.reducerPath);
  });

  it('reads the session redux-persist stored, and nothing from what is not one', () => {
    const key = `persist:${PERSIST_KEY}`;
    localStorage.setItem(key, JSON.stringify({ session: JSON.stringify({ token: 'a.b.c', user: null }) }));
    expect(readStoredSession()).toEqual({ token: 'a.b.c', user: null });
    localStorage.setItem(key, JSON.stringify({ session: JSON.stringify({ token: null, user: null }) }));
    expect(readStoredSession()).toBeNull();
    localStorage.setItem(key, '{not json');
    expect(readStoredSession()).toBeNull();
    localStorage.removeItem(key);
    expect(readStoredSession()).toBeNull();
  });
});

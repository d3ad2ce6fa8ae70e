import { describe, expect, it } from 'vitest';
import { makeUser } from '../testing/test-utils';
import { sessionSlice, setUser } from './session';

describe('setUser (lib/session.ts)', () => {
  const reduce = sessionSlice.reducer;

  it('keeps the same user object when a profile reload brings nothing new', () => {
    const signedIn = reduce(undefined, setUser({ user: makeUser(), token: 'a.b.c' }));
    const reloaded = reduce(signedIn, setUser({ user: makeUser() }));
    expect(reloaded).toBe(signedIn);
    expect(reloaded.user).toBe(signedIn.user);
  });

  it('takes a changed user, and keeps the token unless one is given', () => {
    const signedIn = reduce(undefined, setUser({ user: makeUser(), token: 'a.b.c' }));
    const renamed = reduce(signedIn, setUser({ user: makeUser({ firstname: 'Renamed' }) }));
    expect(renamed.user?.firstname).toBe('Renamed');
    expect(renamed.token).toBe('a.b.c');
    expect(reduce(renamed, setUser({ user: makeUser({ firstname: 'Renamed' }), token: 'd.e.f' })).token).toBe('d.e.f');
  });
});

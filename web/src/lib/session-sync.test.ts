import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeUser } from '../testing/test-utils';
import * as navigation from './navigation';
import { clearSession, setUser, storedSession } from './session';
import { store } from './store';
import { STORAGE_KEY } from './stored-session';

/** What another tab's redux-persist writes for `token` (null: its session ended). */
function storedBy(token: string | null): string {
  const session = storedSession({ token, user: token ? makeUser() : null });
  return JSON.stringify({
    session: JSON.stringify(session),
    _persist: JSON.stringify({ version: -1, rehydrated: true }),
  });
}

/** The `storage` event a write in another tab raises in this one. */
function otherTabWrites(key: string | null, newValue: string | null) {
  window.dispatchEvent(new StorageEvent('storage', { key, newValue, storageArea: window.localStorage }));
}

describe('a session shared by the tabs of a browser', () => {
  let hardNavigate: ReturnType<typeof vi.spyOn>;
  let reloadPage: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    store.dispatch(setUser({ user: makeUser(), token: 'tab-token' }));
    hardNavigate = vi.spyOn(navigation, 'hardNavigate').mockImplementation(() => {});
    reloadPage = vi.spyOn(navigation, 'reloadPage').mockImplementation(() => {});
    vi.spyOn(navigation, 'currentPath').mockReturnValue('/view-images');
  });

  afterEach(() => {
    store.dispatch(clearSession());
    window.sessionStorage.clear();
  });

  it('ends here when another tab logs out, and the login page says the session ended', async () => {
    otherTabWrites(STORAGE_KEY, storedBy(null));
    await vi.waitFor(() => expect(hardNavigate).toHaveBeenCalledWith('/login'));
    expect(store.getState().session.token).toBeNull();
    expect(window.sessionStorage.getItem('medshare:sessionEnded')).toBe('1');
    expect(reloadPage).not.toHaveBeenCalled();
  });

  it('ends here when another tab clears the whole storage', async () => {
    otherTabWrites(null, null);
    await vi.waitFor(() => expect(hardNavigate).toHaveBeenCalledWith('/login'));
  });

  it('reloads on the new session when another tab signs in as someone else', () => {
    otherTabWrites(STORAGE_KEY, storedBy('someone-else'));
    expect(reloadPage).toHaveBeenCalledTimes(1);
    expect(hardNavigate).not.toHaveBeenCalled();
    // This tab writes nothing: the other tab's session stays the stored one.
    expect(store.getState().session.token).toBe('tab-token');
  });

  it('stays put when another tab writes the same session (a profile reload) or other keys', () => {
    otherTabWrites(STORAGE_KEY, storedBy('tab-token'));
    otherTabWrites('userEmail', 'someone@example.test');
    expect(reloadPage).not.toHaveBeenCalled();
    expect(hardNavigate).not.toHaveBeenCalled();
    expect(store.getState().session.token).toBe('tab-token');
  });

  it('a signed-out tab follows another tab that signs in', () => {
    store.dispatch(clearSession());
    otherTabWrites(STORAGE_KEY, storedBy('new-token'));
    expect(reloadPage).toHaveBeenCalledTimes(1);
  });
});

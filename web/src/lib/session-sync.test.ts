import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeUser } from '../testing/test-utils';
import * as navigation from './navigation';
import { clearSession, setUser, storedSession } from './session';
import { persistor, store } from './store';
import { STORAGE_KEY } from './stored-session';

/** What another tab's redux-persist writes for `token` (null: its session ended). */
function storedBy(token: string | null): string {
  const session = storedSession({ token, user: token ? makeUser() : null });
  return JSON.stringify({
    session: JSON.stringify(session),
    _persist: JSON.stringify({ version: -1, rehydrated: true }),
  });
}

/**
 * Another tab writes `value` under `key` (null: it cleared the storage), and this tab hears of it. The
 * event can carry an older value than storage holds by the time it is handled (`carried`).
 */
function otherTabWrites(key: string | null, value: string | null, carried: string | null = value) {
  if (key === null) window.localStorage.clear();
  else if (value === null) window.localStorage.removeItem(key);
  else window.localStorage.setItem(key, value);
  window.dispatchEvent(new StorageEvent('storage', { key, newValue: carried, storageArea: window.localStorage }));
}

describe('a session shared by the tabs of a browser', () => {
  let hardNavigate: ReturnType<typeof vi.spyOn>;
  let reloadPage: ReturnType<typeof vi.spyOn>;

  beforeEach(async () => {
    store.dispatch(setUser({ user: makeUser(), token: 'tab-token' }));
    await persistor.flush();
    hardNavigate = vi.spyOn(navigation, 'hardNavigate').mockImplementation(() => {});
    reloadPage = vi.spyOn(navigation, 'reloadPage').mockImplementation(() => {});
    vi.spyOn(navigation, 'currentPath').mockReturnValue('/view-images');
  });

  afterEach(() => {
    // In the app the tab is leaving; here the next test needs a store that writes again.
    persistor.persist();
    store.dispatch(clearSession());
  });

  it('ends here when another tab logs out, writes nothing, and the login page says the session ended', async () => {
    otherTabWrites(STORAGE_KEY, storedBy(null));
    expect(hardNavigate).toHaveBeenCalledWith('/login');
    expect(store.getState().session.token).toBeNull();
    expect(window.sessionStorage.getItem('medshare:sessionEnded')).toBe('1');
    expect(reloadPage).not.toHaveBeenCalled();
    // The other tab signs in again before this one has gone: this tab's cleared state is not written over it.
    window.localStorage.setItem(STORAGE_KEY, storedBy('signed-in-again'));
    await persistor.flush();
    expect(window.localStorage.getItem(STORAGE_KEY)).toBe(storedBy('signed-in-again'));
  });

  it('on the login page stays, and a sign-in there afterwards is kept', async () => {
    vi.mocked(navigation.currentPath).mockReturnValue('/login');
    otherTabWrites(STORAGE_KEY, storedBy(null));
    expect(hardNavigate).not.toHaveBeenCalled();
    expect(store.getState().session.token).toBeNull();
    store.dispatch(setUser({ user: makeUser(), token: 'signed-in-here' }));
    await persistor.flush();
    expect(window.localStorage.getItem(STORAGE_KEY)).toContain('signed-in-here');
  });

  it('on the share link page (no part in a session) stays, and only follows in memory', async () => {
    vi.mocked(navigation.currentPath).mockReturnValue('/x');
    otherTabWrites(STORAGE_KEY, storedBy(null));
    expect(store.getState().session.token).toBeNull();
    otherTabWrites(STORAGE_KEY, storedBy('someone-else'));
    expect(store.getState().session).toMatchObject({ token: 'someone-else', complete: false });
    expect(hardNavigate).not.toHaveBeenCalled();
    expect(reloadPage).not.toHaveBeenCalled();
    await persistor.flush();
    expect(window.localStorage.getItem(STORAGE_KEY)).toBe(storedBy('someone-else'));
  });

  it('ends here when another tab clears the whole storage', () => {
    otherTabWrites(null, null);
    expect(hardNavigate).toHaveBeenCalledWith('/login');
  });

  it('reloads on the new session when another tab signs in as someone else, writing nothing of its own', async () => {
    otherTabWrites(STORAGE_KEY, storedBy('someone-else'));
    expect(reloadPage).toHaveBeenCalledTimes(1);
    expect(hardNavigate).not.toHaveBeenCalled();
    // Even a change to this tab's session now (a late profile answer) stays out of storage.
    store.dispatch(setUser({ user: makeUser({ firstname: 'Late' }) }));
    await persistor.flush();
    expect(window.localStorage.getItem(STORAGE_KEY)).toBe(storedBy('someone-else'));
  });

  it('a late event (a frozen tab) acts on what storage holds now, not on what the event carried', async () => {
    // Logged out, then signed in again as someone else, before this tab handled the first event.
    otherTabWrites(STORAGE_KEY, storedBy('someone-else'), storedBy(null));
    expect(hardNavigate).not.toHaveBeenCalled();
    expect(reloadPage).toHaveBeenCalledTimes(1);
    await persistor.flush();
    expect(window.localStorage.getItem(STORAGE_KEY)).toBe(storedBy('someone-else'));
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

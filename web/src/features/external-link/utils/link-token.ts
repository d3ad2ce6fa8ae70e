/**
 * Where the share link's token lives in the page (`docs/decisions.md` › Share links for someone
 * without an account (issue 18)): read from `#<token>` once, then kept in this tab's sessionStorage and
 * taken off the address bar, so it is not left in the history, a screenshot or a copied URL, and a
 * reload still opens the link. It never goes into a query string or a log.
 */
const TOKEN_KEY = 'medshare.externalLink.token';
/** Set after a right code in this tab: a reload may then try the link cookie before asking again. */
const OPENED_KEY = 'medshare.externalLink.opened';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** The token of this tab's link, or null when the address holds none (or a damaged one). */
export function readLinkToken(): string | null {
  const hash = window.location.hash.replace(/^#/, '');
  const store = storage();
  if (hash) {
    // Whatever the fragment holds, it leaves the address bar; only a well-formed token is kept.
    window.history.replaceState(window.history.state, '', window.location.pathname);
    store?.removeItem(OPENED_KEY);
    if (!TOKEN.test(hash)) {
      store?.removeItem(TOKEN_KEY);
      return null;
    }
    // Without storage the token stays in the address: a reload must still find it.
    if (!store) {
      window.history.replaceState(window.history.state, '', `${window.location.pathname}#${hash}`);
      return hash;
    }
    store.setItem(TOKEN_KEY, hash);
    return hash;
  }
  const kept = store?.getItem(TOKEN_KEY) ?? null;
  return kept && TOKEN.test(kept) ? kept : null;
}

export const markLinkOpened = () => storage()?.setItem(OPENED_KEY, '1');
export const wasLinkOpened = () => storage()?.getItem(OPENED_KEY) === '1';

/** `Close`: this tab forgets the link and that it was opened (a reload then opens nothing). */
export function forgetLink(): void {
  storage()?.removeItem(TOKEN_KEY);
  storage()?.removeItem(OPENED_KEY);
}

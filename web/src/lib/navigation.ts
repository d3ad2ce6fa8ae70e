/**
 * A full page load, not a router navigation: after a session ends it also drops every decrypted
 * image and message the tab still holds in memory. Kept in its own module so tests can stub it
 * (jsdom cannot navigate).
 */
export function hardNavigate(path: string): void {
  window.location.assign(path);
}

export function currentPath(): string {
  return window.location.pathname;
}

/** A full reload of this page (the session changed under it, lib/session-sync.ts). */
export function reloadPage(): void {
  window.location.reload();
}

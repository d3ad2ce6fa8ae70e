/**
 * Names shared by the static pages (the landing and login pages prerendered by web/build/prerender.ts),
 * their boot script (boot/static-page-boot.ts) and the app that takes them over (lib/prerendered.ts).
 * No imports: the boot script is built from this alone, apart from the app.
 * Why the pages are static first: docs/decisions.md › Static first pages.
 */

/** The static copy of the page, served inside `<div id="prerendered">` in front of the app's #root. */
export const STATIC_COPY_ID = 'prerendered';
/** `<meta name=… content="/assets/index-….js">`: the app's entry, which the boot script starts when needed. */
export const APP_ENTRY_META = 'medshare-app-entry';
/** `<meta name=… content="/assets/index-….css">`: the app's style sheet, which comes with it. */
export const APP_STYLE_META = 'medshare-app-style';
/**
 * `data-submit-requested` on the static copy: a form in it was submitted before the app could take it
 * over; the app submits it once it has (the browser's own submit, a GET with the password in its
 * URL, is always prevented).
 */
export const SUBMIT_REQUESTED = 'submitRequested';
/**
 * `data-interacted` on the static copy: the visitor has touched, clicked or typed on the page. Until
 * then a focus inside it is the page's own autofocus, and the app takes over without waiting.
 */
export const INTERACTED = 'interacted';
/** `data-path` on the static copy: the path it was built for; the app removes it on any other. */
export const COPY_PATH = 'path';

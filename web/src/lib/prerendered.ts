import { useEffect } from 'react';

/**
 * The landing page is also built as static HTML (web/build/prerender.ts) and served at `/` inside
 * `<div id="prerendered">`, so that a phone on a slow link sees it before the JavaScript has run.
 * The app renders beside it into #root, hidden while the static copy is there (index.css), and the
 * page that replaces it removes it once it has rendered the same thing.
 * Why and how: docs/decisions.md › Prerendered landing page.
 */
export const PRERENDERED_ID = 'prerendered';

/** Removes the static copy once the component that replaces it has rendered. */
export function useReplacePrerendered() {
  useEffect(() => {
    document.getElementById(PRERENDERED_ID)?.remove();
  }, []);
}

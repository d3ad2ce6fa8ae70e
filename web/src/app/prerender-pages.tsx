import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import type { ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { Provider as ReduxProvider } from 'react-redux';
import { MemoryRouter } from 'react-router';
import { theme } from '../components/theme/theme';
import { paths } from '../config/paths';
import { LoginForm } from '../features/auth/components/login-form';
import { LandingPage } from '../features/landing/components/landing-page';
import { STATIC_COPY_ID } from '../lib/static-page';
import { createStore } from '../lib/store';

// The build lists each route's chunks from the router's page files (web/build/route-preloads.ts).
export { routePageFiles } from './router';

/** The pages built as static HTML (docs/decisions.md › Static first pages), by the path they are served at. */
export const STATIC_PAGES = {
  landing: { path: paths.home, page: <LandingPage /> },
  login: { path: paths.login, page: <LoginForm /> },
} satisfies Record<string, { path: string; page: ReactNode }>;
export type StaticPageName = keyof typeof STATIC_PAGES;

/**
 * A page as a signed-out visitor first sees it, rendered at build time by web/build/prerender.ts
 * (server-side rendering entry; never part of the browser bundle): its markup, and its styles as one
 * `<style>` for the head, stamped with `nonce` (the server's per-response placeholder) and named as
 * Emotion names the styles it wrote on the server (`data-emotion="mui <id> …"`), so that the app's
 * cache adopts them instead of adding them again.
 */
export function renderStaticPage(name: StaticPageName, nonce: string): { html: string; style: string } {
  const { path, page } = STATIC_PAGES[name];
  const cache = createCache({ key: 'mui', nonce });
  // Compat mode: no <style> beside each element (80 of them made parsing the page slow); the rules
  // stay in cache.inserted for the one tag below.
  cache.compat = true;
  const html = renderToString(
    <CacheProvider value={cache}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        <ReduxProvider store={createStore()}>
          <MemoryRouter initialEntries={[path]}>{page}</MemoryRouter>
        </ReduxProvider>
      </ThemeProvider>
    </CacheProvider>,
  );
  const inserted = Object.entries(cache.inserted).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  const ids = inserted.map(([id]) => id).join(' ');
  const rules = inserted.map(([, css]) => css).join('') + staticFieldRules();
  return { html, style: `<style data-emotion="${cache.key} ${ids}" nonce="${nonce}">${rules}</style>` };
}

/**
 * What MUI's outlined text field does in JavaScript, for the static copy's fields until the app takes
 * over: the label moves onto the outline (and the outline opens for it) while the field has the focus
 * or a value, and the focused field is outlined in the primary colour. A value is an input whose
 * placeholder is not shown (web/build/prerender.ts gives the copy's inputs a blank one) or one the
 * browser filled in. The numbers are MUI's own for a shrunk outlined label.
 */
function staticFieldRules(): string {
  const field = `#${STATIC_COPY_ID} .MuiTextField-root`;
  const active = `${field}:is(:focus-within,:has(input:not(:placeholder-shown)),:has(input:autofill))`;
  const primary = theme.palette.primary.main;
  return (
    `${active} .MuiInputLabel-outlined{transform:translate(14px,-9px) scale(.75);max-width:calc(133% - 32px)}` +
    `${active} .MuiOutlinedInput-notchedOutline>legend{max-width:100%}` +
    `${field}:focus-within .MuiInputLabel-outlined{color:${primary}}` +
    `${field}:focus-within .MuiOutlinedInput-notchedOutline{border-color:${primary};border-width:2px}`
  );
}

import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import { renderToString } from 'react-dom/server';
import { Provider as ReduxProvider } from 'react-redux';
import { MemoryRouter } from 'react-router';
import { theme } from '../components/theme/theme';
import { LandingPage } from '../features/landing/components/landing-page';
import { createStore } from '../lib/store';

/**
 * The landing page as a signed-out visitor first sees it, rendered at build time by
 * web/build/prerender.ts (server-side rendering entry; never part of the browser bundle): its
 * markup, and its styles as one `<style>` for the head, stamped with `nonce` (the server's
 * per-response placeholder) and named as Emotion names the styles it wrote on the server
 * (`data-emotion="mui <id> …"`), so that the app's cache adopts them instead of adding them again.
 */
export function renderLanding(nonce: string): { html: string; style: string } {
  const cache = createCache({ key: 'mui', nonce });
  // Compat mode: no <style> beside each element (80 of them made parsing the page slow); the rules
  // stay in cache.inserted for the one tag below.
  cache.compat = true;
  const html = renderToString(
    <CacheProvider value={cache}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        <ReduxProvider store={createStore()}>
          <MemoryRouter>
            <LandingPage />
          </MemoryRouter>
        </ReduxProvider>
      </ThemeProvider>
    </CacheProvider>,
  );
  const inserted = Object.entries(cache.inserted).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  const ids = inserted.map(([id]) => id).join(' ');
  const rules = inserted.map(([, css]) => css).join('');
  return { html, style: `<style data-emotion="${cache.key} ${ids}" nonce="${nonce}">${rules}</style>` };
}

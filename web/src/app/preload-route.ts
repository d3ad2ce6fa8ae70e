import { matchPath } from 'react-router';
import { paths } from '../config/paths';
import { prefetchViewImages } from '../features/images/api/prefetch-view-images';
import { prefetchPublicSettings } from '../lib/public-settings';
import { store } from '../lib/store';
import { readStoredSession } from '../lib/stored-session';
import { warmIntl } from '../lib/warm-intl';
import { preloadRouteChunks } from './router';

/**
 * What the page the app starts on needs, started before the first render (main.tsx): for View
 * Images its first reads, for every signed-in page the public settings and ICU's start-up (in a
 * worker), then the page's chunks all at once (docs/architecture.md › Frontend, "Start-up").
 * Settles once the page's chunks have arrived (or failed).
 */
export function preloadRoute(pathname: string): Promise<void> {
  const stored = readStoredSession();
  const signedIn = stored !== null;
  // The list first: asked before the page's chunks, it is not queued behind them on a phone's
  // HTTP/1.1 connections. The store already holds the stored session (lib/store.ts).
  if (stored?.user && store.getState().session.token && matchPath(paths.viewImages, pathname))
    prefetchViewImages(store.dispatch, stored.user);
  // The time zone and locale of the dates every signed-in page shows, before the page draws any.
  if (signedIn) prefetchPublicSettings(store.dispatch);
  // Signed-in pages show dates (cards, lists, logs): ICU's start-up goes to a worker, started before
  // the chunks so that it has the most time to finish before the first date is drawn.
  if (signedIn) void warmIntl();
  return preloadRouteChunks(pathname, signedIn);
}

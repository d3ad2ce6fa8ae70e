import { matchPath } from 'react-router';
import { paths } from '../config/paths';
import { prefetchViewImages } from '../features/images/api/prefetch-view-images';
import { warmDateFormatting } from '../features/images/utils/format-date';
import { persistor, store } from '../lib/store';
import { readStoredSession } from '../lib/stored-session';
import { preloadRouteChunks } from './router';

/** Runs `then` once the store holds the stored session (redux-persist reads it asynchronously). */
function afterRehydration(then: () => void): void {
  if (persistor.getState().bootstrapped) return then();
  const unsubscribe = persistor.subscribe(() => {
    if (!persistor.getState().bootstrapped) return;
    unsubscribe();
    then();
  });
}

/**
 * What the page the app starts on needs, started before the first render (main.tsx): its chunks
 * all at once, the date formatting signed-in pages use, and for View Images its first reads (docs/architecture.md › Frontend, "Start-up").
 */
export function preloadRoute(pathname: string): void {
  const signedIn = readStoredSession() !== null;
  preloadRouteChunks(pathname, signedIn);
  // Signed-in pages show dates (cards, lists, logs).
  if (signedIn) warmDateFormatting();
  if (signedIn && matchPath(paths.viewImages, pathname)) {
    afterRehydration(() => {
      const { token, user } = store.getState().session;
      if (token && user) prefetchViewImages(store.dispatch, user);
    });
  }
}

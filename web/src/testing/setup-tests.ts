import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeAll } from 'vitest';
import { apiSlice } from '../lib/api-slice';
import { clearSession } from '../lib/session';
import { store } from '../lib/store';
import { resetActivity } from '../lib/user-activity';
import { server } from './server';

// The web project runs its files one after another in one module graph per worker (vitest.config.ts:
// isolate false), so this file runs before every test file while the store and the MSW server are
// the worker's: the server is started once and never closed, and every test leaves both empty.
const started = globalThis as { mswListening?: boolean };
beforeAll(() => {
  if (started.mswListening) return;
  server.listen({ onUnhandledRequest: 'error' });
  started.mswListening = true;
});

afterEach(async () => {
  cleanup();
  // A screen unmounted mid-load leaves its requests running: they end here, before the cache is
  // emptied, so that no answer lands in the next test's (or file's) store.
  const running = [
    ...store.dispatch(apiSlice.util.getRunningQueriesThunk()),
    ...store.dispatch(apiSlice.util.getRunningMutationsThunk()),
  ];
  for (const request of running) request.abort();
  await Promise.allSettled(running);
  // One test's answers must not leak into the next.
  server.resetHandlers();
  // The app's one store outlives a test: its server-state cache must not.
  store.dispatch(apiSlice.util.resetApiState());
  // The session is the store's too: a test that signed in leaves the next one signed out.
  store.dispatch(clearSession());
  window.localStorage.clear();
  window.sessionStorage.clear();
  // The user's last activity is the module's too (its last write, a pending one): as if none yet.
  resetActivity();
});

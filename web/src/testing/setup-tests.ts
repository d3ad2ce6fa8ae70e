import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { apiSlice } from '../lib/api-slice';
import { clearSession } from '../lib/session';
import { store } from '../lib/store';
import { server } from './server';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));

afterEach(() => {
  cleanup();
  // One test's answers must not leak into the next.
  server.resetHandlers();
  // The app's one store outlives a test: its server-state cache must not.
  store.dispatch(apiSlice.util.resetApiState());
  // The session is the store's too: a test that signed in leaves the next one signed out.
  store.dispatch(clearSession());
  window.localStorage.clear();
  window.sessionStorage.clear();
});

afterAll(() => server.close());

import { combineReducers, configureStore, isPlain, type Middleware } from '@reduxjs/toolkit';
import { useDispatch, useSelector } from 'react-redux';
import {
  FLUSH,
  PAUSE,
  PERSIST,
  PURGE,
  REGISTER,
  REHYDRATE,
  createTransform,
  persistReducer,
  persistStore,
  type Storage,
} from 'redux-persist';
import { ApiError, apiRequest, bindSession } from './api-client.ts';
import { type ApiClient, apiSlice } from './api-slice.ts';
import { type SessionState, adoptStoredSession, clearSession, sessionSlice, storedSession } from './session.ts';
import { paths } from '../config/paths.ts';
import { currentPath, hardNavigate, reloadPage } from './navigation.ts';
import { markSessionEnded } from './session-ended.ts';
import { followOtherTabs } from './session-sync.ts';
import { PERSIST_KEY, readStoredSession } from './stored-session.ts';

/**
 * redux-persist's own localStorage adapter is a CommonJS deep import; this one is four lines and
 * fails soft when storage is blocked (private mode), which then just means "not remembered".
 */
const localStorageAdapter: Storage = {
  getItem: async (key: string) => window.localStorage.getItem(key),
  setItem: async (key: string, value: string) => window.localStorage.setItem(key, value),
  removeItem: async (key: string) => window.localStorage.removeItem(key),
};

const rootReducer = combineReducers({
  [sessionSlice.reducerPath]: sessionSlice.reducer,
  [apiSlice.reducerPath]: apiSlice.reducer,
});

/**
 * When a session ends (logout, account deleted, a 401 that says it is gone) or another one
 * replaces it, the server-state cache is emptied: one user's lists never show to the next.
 */
const resetCacheWhenSessionEnds: Middleware<object, RootState> = (api) => (next) => (action) => {
  const before = api.getState().session.token;
  const result = next(action);
  const after = api.getState().session.token;
  if (before !== null && after !== before) api.dispatch(apiSlice.util.resetApiState());
  return result;
};

const persistedReducer = persistReducer<ReturnType<typeof rootReducer>>(
  {
    key: PERSIST_KEY,
    storage: localStorageAdapter,
    // Only the session survives a reload, without its personal fields (`storedSession`); the
    // server-state cache (`api`) never touches the disk.
    whitelist: [sessionSlice.reducerPath],
    transforms: [
      createTransform(
        (session: SessionState) => storedSession(session),
        (stored: SessionState) => stored,
        { whitelist: [sessionSlice.reducerPath] },
      ),
    ],
    timeout: 5000,
  },
  rootReducer,
);

/**
 * Failed calls stay `ApiError` instances so `instanceof ApiError` works after `.unwrap()`; their
 * fields (status, message, field errors, code) are plain data, so the cache may hold them.
 */
function isSerializable(value: unknown): boolean {
  return isPlain(value) || value instanceof ApiError;
}

/** What the api slice's base query calls. */
const apiClient: ApiClient = { request: apiRequest, ApiError };

export function createStore(preloadedState?: Partial<RootState>) {
  return configureStore({
    reducer: persistedReducer,
    preloadedState: preloadedState as ReturnType<typeof persistedReducer> | undefined,
    middleware: (getDefault) =>
      getDefault({
        thunk: { extraArgument: apiClient },
        // redux-persist's own actions carry functions; they never reach our reducers' state.
        serializableCheck: {
          ignoredActions: [FLUSH, REHYDRATE, PAUSE, PERSIST, PURGE, REGISTER],
          isSerializable,
        },
      }).concat(apiSlice.middleware, resetCacheWhenSessionEnds),
  });
}

export type RootState = ReturnType<typeof rootReducer>;
export type AppStore = ReturnType<typeof createStore>;
export type AppDispatch = AppStore['dispatch'];

/**
 * The store starts with the stored session, read synchronously: the first reads (View Images' list)
 * can start in the entry's own task, before redux-persist's asynchronous rehydration, which then sets
 * the same session and stays the authority (app/preload-route.ts).
 */
const stored = readStoredSession();
export const store = createStore(stored ? { session: stored } : undefined);
export const persistor = persistStore(store);

/** Whether redux-persist has put the stored state back (read by the app's gate, app/provider.tsx). */
export const isRehydrated = () => persistor.getState().bootstrapped;

/** Settles once redux-persist has put the stored state back (main.tsx waits for it before the first render). */
export function rehydrated(): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!isRehydrated()) return;
      unsubscribe();
      resolve();
    };
    const unsubscribe = persistor.subscribe(check);
    check();
  });
}

bindSession({
  token: () => store.getState().session.token,
  async end() {
    store.dispatch(clearSession());
    await persistor.flush();
  },
});

// Another tab logged out: so does this one. Another tab signed in as someone else: a full page load
// here drops what this tab shows of the old session and starts it on the new one. Either way this tab
// writes nothing more to storage: the stored session is the other tab's (lib/session-sync.ts).
followOtherTabs(() => store.getState().session.token, {
  ended: () => {
    // Read first: once the session is cleared, a signed-in page's guard moves the router by itself.
    const path = currentPath();
    // The share link page has no part in a session, and the login page has nothing to leave: they
    // stay, and only forget the old session.
    if (path === paths.externalLink || path === paths.login) {
      store.dispatch(clearSession());
      return;
    }
    persistor.pause();
    store.dispatch(clearSession());
    markSessionEnded();
    hardNavigate(paths.login);
  },
  replaced: () => {
    if (currentPath() === paths.externalLink) {
      const stored = readStoredSession();
      if (stored) store.dispatch(adoptStoredSession(stored));
      return;
    }
    persistor.pause();
    reloadPage();
  },
});

export const useAppDispatch = useDispatch.withTypes<AppDispatch>();
export const useAppSelector = useSelector.withTypes<RootState>();

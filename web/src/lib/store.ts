import { combineReducers, configureStore } from '@reduxjs/toolkit';
import { useDispatch, useSelector } from 'react-redux';
import {
  FLUSH,
  PAUSE,
  PERSIST,
  PURGE,
  REGISTER,
  REHYDRATE,
  persistReducer,
  persistStore,
  type Storage,
} from 'redux-persist';
import { sessionSlice } from './session.ts';

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
});

const persistedReducer = persistReducer(
  {
    key: 'root',
    storage: localStorageAdapter,
    // Only the session survives a reload; lists of images or messages never touch the disk.
    whitelist: [sessionSlice.reducerPath],
    timeout: 5000,
  },
  rootReducer,
);

export function createStore(preloadedState?: Partial<RootState>) {
  return configureStore({
    reducer: persistedReducer,
    preloadedState: preloadedState as ReturnType<typeof persistedReducer> | undefined,
    middleware: (getDefault) =>
      getDefault({
        // redux-persist's own actions carry functions; they never reach our reducers' state.
        serializableCheck: { ignoredActions: [FLUSH, REHYDRATE, PAUSE, PERSIST, PURGE, REGISTER] },
      }),
  });
}

export type RootState = ReturnType<typeof rootReducer>;
export type AppStore = ReturnType<typeof createStore>;
export type AppDispatch = AppStore['dispatch'];

export const store = createStore();
export const persistor = persistStore(store);

export const useAppDispatch = useDispatch.withTypes<AppDispatch>();
export const useAppSelector = useSelector.withTypes<RootState>();

import { CacheProvider } from '@emotion/react';
import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import { useSyncExternalStore, type ReactNode } from 'react';
import { Provider as ReduxProvider } from 'react-redux';
import { ToastContainer } from 'react-toastify/unstyled';
import { createNonceCache } from '../components/theme/emotion-cache';
import { theme } from '../components/theme/theme';
import { isRehydrated, persistor, store } from '../lib/store';

const emotionCache = createNonceCache();

/**
 * Renders nothing until redux-persist has put the stored state back, as its PersistGate does, but
 * reads that state during render: when main.tsx renders after the rehydration, the pages render in
 * that first render, not in a second one that PersistGate's componentDidMount starts after the commit.
 */
function RehydratedGate({ children }: { children: ReactNode }) {
  return useSyncExternalStore(persistor.subscribe, isRehydrated) ? children : null;
}

export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <CacheProvider value={emotionCache}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        <ReduxProvider store={store}>
          {/* Pages wait for the stored session, so a reload never flashes the login redirect. */}
          <RehydratedGate>{children}</RehydratedGate>
        </ReduxProvider>
        <ToastContainer
          position="top-right"
          autoClose={5000}
          newestOnTop
          closeOnClick={false}
          pauseOnFocusLoss
          hotKeys={(event) => event.altKey && event.code === 'KeyT'}
          aria-label="Notifications Alt+T"
          theme="colored"
        />
      </ThemeProvider>
    </CacheProvider>
  );
}

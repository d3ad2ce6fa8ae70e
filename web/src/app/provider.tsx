import { CacheProvider } from '@emotion/react';
import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import type { ReactNode } from 'react';
import { Provider as ReduxProvider } from 'react-redux';
import { ToastContainer } from 'react-toastify/unstyled';
import { PersistGate } from 'redux-persist/integration/react';
import { createNonceCache } from '../components/theme/emotion-cache';
import { theme } from '../components/theme/theme';
import { persistor, store } from '../lib/store';

const emotionCache = createNonceCache();

export function AppProvider({ children }: { children: ReactNode }) {
  return (
    <CacheProvider value={emotionCache}>
      <ThemeProvider theme={theme}>
        <CssBaseline />
        <ReduxProvider store={store}>
          {/* Pages wait for the stored session, so a reload never flashes the login redirect. */}
          <PersistGate loading={null} persistor={persistor}>
            {children}
          </PersistGate>
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

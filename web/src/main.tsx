// First: configures zod before any schema is built (see the module).
import './lib/zod-jitless.ts';
import 'react-toastify/ReactToastify.css';
import './index.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { preloadRoute } from './app/preload-route';

// The page's chunks (and View Images' first reads) start now, not one nesting level per render.
preloadRoute(window.location.pathname);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// First: configures zod before any schema is built (see the module).
import './lib/zod-jitless.ts';
import 'react-toastify/ReactToastify.css';
import './index.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { preloadRoute } from './app/preload-route';
import { PROGRESS_DELAY_MS } from './components/ui/delayed-progress';
import { rehydrated } from './lib/store';

// The page's chunks (and View Images' first reads) start now, not one nesting level per render.
const chunksIn = preloadRoute(window.location.pathname);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// The first render waits for the page's chunks and the stored state: rendered before, it would only
// commit the route's fallback, an empty box for its first PROGRESS_DELAY_MS, and React would then hold
// the page back for its 300 ms reveal throttle. A slow download renders the fallback at
// PROGRESS_DELAY_MS. Not a transition: a Back pressed between its slices would be lost to the router
// (docs/decisions.md › Pages rendered once their chunks are in).
const longest = new Promise<void>((resolve) => setTimeout(resolve, PROGRESS_DELAY_MS));
void Promise.race([Promise.all([chunksIn, rehydrated()]), longest]).then(() =>
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);

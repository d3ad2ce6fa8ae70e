import { readSessionEnded } from '../lib/session-ended';
import { APP_ENTRY_META, APP_STYLE_META, INTERACTED, STATIC_COPY_ID, SUBMIT_REQUESTED } from '../lib/static-page';
import { readStoredSession } from '../lib/stored-session';

/**
 * What the one script of a static page does (the landing and login pages, web/build/prerender.ts;
 * started by static-page-boot.ts). The page is complete HTML, so the app (190 KB of JavaScript and a
 * few hundred milliseconds of a phone's main thread) starts only when it is needed:
 * - at once for a signed-in visitor (the landing page then offers the way back into the app, the login
 *   page sends them to their start page) and after the server ended a session (the login page says so);
 * - otherwise at the visitor's first touch, click, pointer move or key press; until then the page is
 *   its links and, on the login page, a form whose submit waits for the app.
 * Until then its files are fetched (not run) once the page is drawn and idle, so that starting it is
 * quick. Why: docs/decisions.md › Static first pages. Returns a function that undoes the listeners.
 */
export function bootStaticPage(): () => void {
  const INTERACTIONS = ['pointerdown', 'pointermove', 'touchstart', 'keydown'] as const;
  const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? null;
  const entry = meta(APP_ENTRY_META);
  const style = meta(APP_STYLE_META);
  const copy = () => document.getElementById(STATIC_COPY_ID);
  let started = false;

  function startApp(): void {
    if (started || !entry) return;
    started = true;
    if (style) document.head.append(Object.assign(document.createElement('link'), { rel: 'stylesheet', href: style }));
    document.head.append(Object.assign(document.createElement('script'), { type: 'module', src: entry }));
  }

  function onInteraction(event?: Event): void {
    // A pointer that did not move is no visitor: Chromium sends such a pointermove (no movement, at
    // 0,0) when the layout changes under where it last saw the mouse, and it started the app unasked.
    const move = event as MouseEvent | undefined;
    if (move?.type === 'pointermove' && move.movementX === 0 && move.movementY === 0) return;
    for (const type of INTERACTIONS) removeEventListener(type, onInteraction, true);
    const page = copy();
    if (page) page.dataset[INTERACTED] = 'true';
    startApp();
  }

  // A form of the static copy never submits itself: it would send its fields in a GET to the page's
  // own URL. The app submits it when it takes the page over (lib/prerendered.ts usePrerenderedForm).
  function onSubmit(event: Event): void {
    const page = copy();
    if (!page || !(event.target instanceof Node) || !page.contains(event.target)) return;
    event.preventDefault();
    page.dataset[SUBMIT_REQUESTED] = 'true';
    onInteraction();
  }

  // Fetched, not run: the first interaction then starts the app from the cache.
  function prefetch(): void {
    for (const [href, as] of [
      [entry, 'script'],
      [style, 'style'],
    ] as const) {
      if (href && !started)
        document.head.append(
          Object.assign(document.createElement('link'), { rel: 'prefetch', href, as, crossOrigin: 'anonymous' }),
        );
    }
  }
  // Once the page is loaded and drawn and the main thread is idle: the page's own bytes come first.
  let observer: PerformanceObserver | undefined;
  function whenIdle(): void {
    if ('requestIdleCallback' in window) requestIdleCallback(prefetch, { timeout: 5000 });
    else prefetch();
  }
  function whenDrawn(): void {
    if (!('PerformanceObserver' in window) || !PerformanceObserver.supportedEntryTypes?.includes('paint'))
      return whenIdle();
    observer = new PerformanceObserver((list) => {
      if (!list.getEntriesByName('first-contentful-paint').length) return;
      observer?.disconnect();
      whenIdle();
    });
    observer.observe({ type: 'paint', buffered: true });
  }

  // The copy's forms come with their submit buttons disabled (web/build/prerender.ts): without this
  // script they must not send anything; with it, their submit waits for the app (onSubmit).
  for (const button of copy()?.querySelectorAll<HTMLButtonElement>('button[type="submit"]') ?? [])
    button.disabled = false;
  document.addEventListener('submit', onSubmit, true);
  for (const type of INTERACTIONS) addEventListener(type, onInteraction, { capture: true, passive: true });
  if (readStoredSession() !== null || sessionEnded()) startApp();
  else if (document.readyState === 'complete') whenDrawn();
  else addEventListener('load', whenDrawn, { once: true });

  return () => {
    document.removeEventListener('submit', onSubmit, true);
    for (const type of INTERACTIONS) removeEventListener(type, onInteraction, true);
    removeEventListener('load', whenDrawn);
    observer?.disconnect();
  };
}

function sessionEnded(): boolean {
  return readSessionEnded() !== null;
}

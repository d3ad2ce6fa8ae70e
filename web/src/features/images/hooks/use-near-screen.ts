import { useLayoutEffect, useState, type RefObject } from 'react';

/**
 * How far beyond the screen a card is drawn ahead once the user moves: one screen height above and
 * below, so that a card scrolled to at a reading pace is drawn before it shows.
 */
const AHEAD = '100% 0px';
/** What tells that the user is moving through the page. */
const ENGAGING = ['scroll', 'wheel', 'touchmove', 'keydown', 'resize'] as const;

const waiting = new Map<Element, () => void>();
let observer: IntersectionObserver | null = null;

function observeAll() {
  observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer?.unobserve(entry.target);
        const show = waiting.get(entry.target);
        waiting.delete(entry.target);
        show?.();
      }
    },
    { rootMargin: AHEAD },
  );
  for (const element of waiting.keys()) observer.observe(element);
}

function engaged() {
  for (const type of ENGAGING) window.removeEventListener(type, engaged, true);
  observeAll();
}

/**
 * Whether an element's content should be drawn: true when it is on screen as the page first draws
 * it, else once the user scrolls (or types, or resizes the window) and it comes within one screen of
 * the view; true from then on. View Images draws its cards with it: on a phone the screen holds one
 * or two, and each card not drawn during the load is ~60 ms less blocked main thread on Lighthouse's
 * 4x-slowed phone (docs/architecture.md › Frontend, "First render of View Images"). Without
 * IntersectionObserver (old browsers, jsdom), always true.
 */
export function useNearScreen(ref: RefObject<Element | null>): boolean {
  const [near, setNear] = useState(() => typeof IntersectionObserver === 'undefined');
  useLayoutEffect(() => {
    const element = ref.current;
    if (near || !element) return;
    // Before the first paint: what is on screen is drawn in this same task, never as a placeholder first.
    const { top, bottom } = element.getBoundingClientRect();
    if (bottom > 0 && top < window.innerHeight) {
      setNear(true);
      return;
    }
    waiting.set(element, () => setNear(true));
    if (observer) observer.observe(element);
    else for (const type of ENGAGING) window.addEventListener(type, engaged, { capture: true, passive: true });
    return () => {
      waiting.delete(element);
      observer?.unobserve(element);
    };
  }, [near, ref]);
  return near;
}

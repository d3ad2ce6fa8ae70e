import { startTransition, useLayoutEffect, useState, type RefObject } from 'react';
import { flushSync } from 'react-dom';

/**
 * How far beyond the screen a card is drawn ahead once the user moves: one screen height above and
 * below, so that a card scrolled to at a reading pace is drawn before it shows.
 */
const AHEAD = '100% 0px';
/** What tells that the user is moving through the page (a tap may delete a card and pull others up). */
const ENGAGING = ['scroll', 'wheel', 'touchmove', 'pointerdown', 'keydown', 'resize'] as const;

/**
 * The elements not drawn yet, each with what draws it, until the draw commits (a draw the observer
 * started is a transition, still pending when a Tab comes); the observer runs while there are any.
 */
const waiting = new Map<Element, () => void>();
let observer: IntersectionObserver | null = null;
let listening = false;
let tabbing = false;

function listen(on: boolean) {
  if (listening === on) return;
  listening = on;
  for (const type of ENGAGING)
    if (on) window.addEventListener(type, engaged, { capture: true, passive: true });
    else window.removeEventListener(type, engaged, true);
}

/**
 * Tab moves focus in the same task as its keydown, before an observer could report: the cards within
 * a screen are drawn in the key's own handler, so that focus goes on into the next card rather than
 * past its outline (the observer's draws are transitions, which a quick Tab can also overtake).
 */
function drawBeforeTab(event: KeyboardEvent) {
  if (event.key !== 'Tab') return;
  // Synchronous, and ahead of any transition the observer started for the same card.
  flushSync(() => {
    for (const element of [...waiting.keys()]) if (withinAScreen(element)) draw(element);
  });
}

function watchTab(on: boolean) {
  if (tabbing === on) return;
  tabbing = on;
  if (on) window.addEventListener('keydown', drawBeforeTab, true);
  else window.removeEventListener('keydown', drawBeforeTab, true);
}

/** Nothing left to draw (every card drawn, or the page left): stop watching, and wait for a new load. */
function settleIfDone() {
  if (waiting.size > 0) return;
  listen(false);
  watchTab(false);
  observer?.disconnect();
  observer = null;
}

/** Asks an element's component to draw it; it leaves `waiting` when that commits (the hook's cleanup). */
function draw(element: Element) {
  observer?.unobserve(element);
  waiting.get(element)?.();
}

const withinAScreen = (element: Element) => {
  const { top, bottom } = element.getBoundingClientRect();
  return bottom > -window.innerHeight && top < 2 * window.innerHeight;
};

function engaged() {
  listen(false);
  observer = new IntersectionObserver(
    (entries) => {
      // A transition, as the load's steps are (useRevealBudget): a scroll that brings three cards
      // near does not block a tap while they render.
      startTransition(() => {
        for (const entry of entries) if (entry.isIntersecting) draw(entry.target);
      });
    },
    { rootMargin: AHEAD },
  );
  for (const element of waiting.keys()) observer.observe(element);
  settleIfDone();
}

/**
 * Whether an element's content should be drawn: true when it is on screen as the page first lays it
 * out, else once the user scrolls, taps, types or resizes the window and it comes within one screen of
 * the view; true from then on. View Images draws its cards with it: on a phone the screen holds one
 * or two, and each card not drawn during the load is ~60 ms less blocked main thread on Lighthouse's
 * 4x-slowed phone (docs/architecture.md › Frontend, "First render of View Images"). Once nothing
 * waits (every card drawn, or the page left) the watching ends, and the next load starts over.
 * Without IntersectionObserver (old browsers, jsdom), always true.
 */
export function useNearScreen(ref: RefObject<Element | null>): boolean {
  const [near, setNear] = useState(() => typeof IntersectionObserver === 'undefined');
  useLayoutEffect(() => {
    const element = ref.current;
    if (near || !element) return;
    // Before the first paint: what is on screen is drawn in this same task, never as an outline first.
    const { top, bottom } = element.getBoundingClientRect();
    if (bottom > 0 && top < window.innerHeight) {
      setNear(true);
      return;
    }
    waiting.set(element, () => setNear(true));
    watchTab(true);
    if (observer) observer.observe(element);
    else listen(true);
    return () => {
      waiting.delete(element);
      observer?.unobserve(element);
      settleIfDone();
    };
  }, [near, ref]);
  return near;
}

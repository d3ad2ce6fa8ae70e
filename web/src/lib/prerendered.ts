import { type RefObject, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { COPY_PATH, INTERACTED, STATIC_COPY_ID, SUBMIT_REQUESTED } from './static-page';

/**
 * The landing and login pages are also built as static HTML (web/build/prerender.ts) and served inside
 * `<div id="prerendered">`, so that a phone on a slow link sees them before any JavaScript has run.
 * When the app runs (boot/static-page.ts decides when), it renders the same page beside the copy into
 * #root, hidden while the copy is there (the page's inline style), and the page takes the copy's place
 * with one of the hooks below. Why and how: docs/decisions.md › Static first pages.
 */
export const PRERENDERED_ID = STATIC_COPY_ID;

const staticCopy = () => document.getElementById(STATIC_COPY_ID);
const appRoot = () => document.getElementById('root');
const inputNamed = (within: Element, name: string) =>
  [...within.querySelectorAll('input')].find((input) => input.name === name);
const isField = (node: unknown): node is HTMLInputElement | HTMLTextAreaElement =>
  node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement;
const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';

/**
 * Where the focus is in the copy, as a position among its focusable elements: the app renders the same
 * page, so the element at that position of #root is the one the visitor was on.
 */
function focusPosition(copy: HTMLElement): number {
  return copy.contains(document.activeElement)
    ? [...copy.querySelectorAll(FOCUSABLE)].indexOf(document.activeElement!)
    : -1;
}

/** Focuses the app's element at `position`; a field gets its caret at the end, where typing goes on. */
function refocus(position: number): void {
  const target = position < 0 ? undefined : appRoot()?.querySelectorAll<HTMLElement>(FOCUSABLE)[position];
  if (!target) return;
  target.focus();
  if (isField(target)) {
    // Assigning the value again puts the caret at its end (e-mail inputs have no selection API).
    const { value } = target;
    target.value = '';
    target.value = value;
  }
}

/**
 * Runs `takeOver` (with the focus position to restore) as soon as it cannot get in the visitor's way:
 * at once, unless they are using the copy — they have interacted with the page, have not submitted a
 * form in it, and are typing in one of its fields or pressing a pointer on it. Then: when the focus
 * leaves the fields for anything else, unless a press is under way; when a press ends (after its click
 * has been dispatched, so that the click is not lost with the element); or when a form in it is
 * submitted (the boot script has already prevented the browser's own submit). Returns a function that
 * stops waiting.
 */
function whenUnused(copy: HTMLElement, takeOver: (focus: number) => void): () => void {
  let pressing = false;
  const pressed = () => pressing || copy.querySelector(':active') !== null;
  const inUse = () =>
    copy.dataset[INTERACTED] === 'true' &&
    copy.dataset[SUBMIT_REQUESTED] !== 'true' &&
    ((isField(document.activeElement) && copy.contains(document.activeElement)) || pressed());
  if (!inUse()) {
    takeOver(focusPosition(copy));
    return () => undefined;
  }
  let timer: number | undefined;
  const listeners: Array<[EventTarget, string, (event: Event) => void]> = [
    [copy, 'focusout', onFocusOut as (event: Event) => void],
    [document, 'submit', onSubmit],
    [document, 'pointerdown', onPointerDown],
    [document, 'pointerup', onPointerEnd],
    [document, 'pointercancel', onPointerEnd],
  ];
  const stop = () => {
    window.clearTimeout(timer);
    for (const [target, type, listener] of listeners) target.removeEventListener(type, listener, true);
  };
  let done = false;
  const go = () => {
    if (done) return;
    done = true;
    stop();
    takeOver(focusPosition(copy));
  };
  function onFocusOut(event: FocusEvent) {
    const next = event.relatedTarget;
    if ((isField(next) && copy.contains(next)) || pressed()) return;
    // The focus has landed on its new element by the time this runs.
    window.setTimeout(go);
  }
  function onSubmit(event: Event) {
    if (event.target instanceof Node && copy.contains(event.target)) go();
  }
  function onPointerDown(event: Event) {
    if (event.target instanceof Node && copy.contains(event.target)) pressing = true;
  }
  function onPointerEnd() {
    pressing = false;
    window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      if (!inUse()) go();
    });
  }
  for (const [target, type, listener] of listeners) target.addEventListener(type, listener, true);
  return stop;
}

/** The landing page: removes the static copy once the app has rendered the same thing. */
export function useReplacePrerendered() {
  useEffect(() => {
    const copy = staticCopy();
    if (!copy) return;
    return whenUnused(copy, (focus) => {
      copy.remove();
      refocus(focus);
    });
  }, []);
}

/**
 * A page whose static copy holds a form (the login page): what the visitor typed or their browser
 * filled in there becomes the app form's state (`fields`: each input's name and its setter), the
 * element that had the focus has it again, and a submit they made before the app could take over is
 * made again by the app's form, with those values.
 */
export function usePrerenderedForm(
  form: RefObject<HTMLFormElement | null>,
  fields: Record<string, (value: string) => void>,
) {
  const after = useRef<{ focus: number; submit: boolean } | null>(null);
  const [takenOver, setTakenOver] = useState(0);
  const setters = useRef(fields);
  setters.current = fields;

  useLayoutEffect(() => {
    const copy = staticCopy();
    if (!copy) return;
    return whenUnused(copy, (focus) => {
      for (const [name, set] of Object.entries(setters.current)) {
        const input = inputNamed(copy, name);
        if (input?.value) set(input.value);
      }
      after.current = { focus, submit: copy.dataset[SUBMIT_REQUESTED] === 'true' };
      copy.remove();
      // A render even when nothing was typed, so that the focus and submit below still happen.
      setTakenOver((n) => n + 1);
    });
  }, []);

  // After the render that carries the copied values into the form's inputs.
  useLayoutEffect(() => {
    const next = after.current;
    if (!takenOver || !next) return;
    after.current = null;
    refocus(next.focus);
    if (next.submit) form.current?.requestSubmit();
  }, [takenOver, form]);
}

/**
 * For the app's root layout: a static copy built for another path than the one the app shows (the
 * login page's, when a signed-in visitor is sent on to their start page) is removed, so that it never
 * covers the page the app has gone to.
 */
export function useDropStaticCopyElsewhere(pathname: string) {
  useLayoutEffect(() => {
    const copy = staticCopy();
    if (copy && copy.dataset[COPY_PATH] !== pathname) copy.remove();
  }, [pathname]);
}

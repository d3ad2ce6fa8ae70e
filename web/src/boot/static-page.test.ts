import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SESSION_ENDED_KEY } from '../config/constants';
import { APP_ENTRY_META, APP_STYLE_META, INTERACTED, STATIC_COPY_ID, SUBMIT_REQUESTED } from '../lib/static-page';
import { bootStaticPage } from './static-page';

const ENTRY = '/assets/index-abc.js';
const STYLE = '/assets/index-abc.css';
let stop: (() => void) | undefined;

const appScripts = () => [...document.head.querySelectorAll('script')].filter((s) => s.getAttribute('src') === ENTRY);
const appStyles = () =>
  [...document.head.querySelectorAll('link[rel="stylesheet"]')].filter((l) => l.getAttribute('href') === STYLE);
const copy = () => document.getElementById(STATIC_COPY_ID)!;

beforeEach(() => {
  document.head.insertAdjacentHTML(
    'beforeend',
    `<meta name="${APP_ENTRY_META}" content="${ENTRY}"><meta name="${APP_STYLE_META}" content="${STYLE}">`,
  );
  document.body.insertAdjacentHTML(
    'afterbegin',
    `<div id="${STATIC_COPY_ID}"><form><input name="email"><button type="submit" disabled>Login</button></form></div>`,
  );
});

afterEach(() => {
  stop?.();
  stop = undefined;
  for (const node of document.head.querySelectorAll(`meta[name^="medshare-app"], script[src="${ENTRY}"], link[href]`))
    node.remove();
  document.getElementById(STATIC_COPY_ID)?.remove();
});

describe('a static page’s boot (boot/static-page.ts)', () => {
  it('starts the app at once for a signed-in visitor: its style sheet, then its entry', () => {
    localStorage.setItem(
      'persist:root',
      JSON.stringify({ session: JSON.stringify({ token: 't'.repeat(40), user: null }) }),
    );
    stop = bootStaticPage();
    expect(appStyles()).toHaveLength(1);
    expect(appScripts()).toHaveLength(1);
    expect(appScripts()[0]!.type).toBe('module');
  });

  it('starts it at once after the server ended a session, so that the login page can say so', () => {
    sessionStorage.setItem(SESSION_ENDED_KEY, '1');
    stop = bootStaticPage();
    expect(appScripts()).toHaveLength(1);
  });

  it('leaves a signed-out visitor’s page alone until they interact, then starts the app once', () => {
    stop = bootStaticPage();
    expect(appScripts()).toHaveLength(0);
    expect(copy().dataset[INTERACTED]).toBeUndefined();
    window.dispatchEvent(new Event('pointermove'));
    window.dispatchEvent(new Event('keydown'));
    expect(appScripts()).toHaveLength(1);
    expect(appStyles()).toHaveLength(1);
    expect(copy().dataset[INTERACTED]).toBe('true');
  });

  it('takes a pointer move that did not move for no interaction (Chromium sends one when the layout changes)', () => {
    stop = bootStaticPage();
    window.dispatchEvent(new MouseEvent('pointermove', { movementX: 0, movementY: 0 }));
    expect(appScripts()).toHaveLength(0);
    window.dispatchEvent(new MouseEvent('pointermove', { movementX: 3, movementY: 0 }));
    expect(appScripts()).toHaveLength(1);
  });

  it('enables the submit buttons the static copy comes with disabled (without it, nothing may be sent)', () => {
    expect(copy().querySelector('button')!.disabled).toBe(true);
    stop = bootStaticPage();
    expect(copy().querySelector('button')!.disabled).toBe(false);
  });

  it('never lets the static form submit itself: the submit is held for the app, which it starts', () => {
    stop = bootStaticPage();
    const form = copy().querySelector('form')!;
    const event = new Event('submit', { bubbles: true, cancelable: true });
    form.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(true);
    expect(copy().dataset[SUBMIT_REQUESTED]).toBe('true');
    expect(appScripts()).toHaveLength(1);
  });

  it('does not touch a form outside the static copy', () => {
    stop = bootStaticPage();
    const other = document.createElement('form');
    document.body.append(other);
    const event = new Event('submit', { bubbles: true, cancelable: true });
    other.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(false);
    expect(appScripts()).toHaveLength(0);
    other.remove();
  });
});

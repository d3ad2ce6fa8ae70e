import { act, render, screen } from '@testing-library/react';
import { useRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Callback = (entries: Array<{ isIntersecting: boolean; target: Element }>) => void;

/** A stand-in IntersectionObserver that the test tells when an element comes near. */
class FakeObserver {
  static instances: FakeObserver[] = [];
  observed = new Set<Element>();
  readonly callback: Callback;
  readonly options: { rootMargin?: string };
  constructor(callback: Callback, options: { rootMargin?: string }) {
    this.callback = callback;
    this.options = options;
    FakeObserver.instances.push(this);
  }
  observe(element: Element) {
    this.observed.add(element);
  }
  unobserve(element: Element) {
    this.observed.delete(element);
  }
  disconnect() {
    this.observed.clear();
    this.disconnected = true;
  }
  disconnected = false;
}

/** Each test gets the module afresh: its observer and waiting list are per document. */
async function probe(top: number) {
  const { useNearScreen } = await import('./use-near-screen');
  function Slot({ name }: { name: string }) {
    const ref = useRef<HTMLDivElement>(null);
    const near = useNearScreen(ref);
    return <div ref={ref}>{near ? `${name} drawn` : `${name} outline`}</div>;
  }
  vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(
    () => ({ top, bottom: top + 369 }) as DOMRect,
  );
  return render(<Slot name="card" />);
}

describe('useNearScreen', () => {
  beforeEach(() => {
    vi.resetModules();
    FakeObserver.instances = [];
    vi.stubGlobal('IntersectionObserver', FakeObserver);
    vi.stubGlobal('innerHeight', 823);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('draws what is on screen at once, with no observer at all', async () => {
    await probe(562);
    expect(screen.getByText('card drawn')).toBeInTheDocument();
    expect(FakeObserver.instances).toHaveLength(0);
  });

  it('keeps a card below the screen an outline until the user scrolls and it comes within a screen', async () => {
    await probe(947);
    expect(screen.getByText('card outline')).toBeInTheDocument();
    // Nothing is watched while the user has not moved: the load draws only what shows.
    expect(FakeObserver.instances).toHaveLength(0);

    act(() => void window.dispatchEvent(new Event('scroll')));
    expect(FakeObserver.instances).toHaveLength(1);
    const observer = FakeObserver.instances[0]!;
    expect(observer.options.rootMargin).toBe('100% 0px');
    const [element] = [...observer.observed];
    expect(element).toBeDefined();

    act(() => observer.callback([{ isIntersecting: false, target: element! }]));
    expect(screen.getByText('card outline')).toBeInTheDocument();
    act(() => observer.callback([{ isIntersecting: true, target: element! }]));
    expect(screen.getByText('card drawn')).toBeInTheDocument();
    expect(observer.observed.size).toBe(0);
  });

  it('draws the cards within a screen in a Tab key’s own handler, before focus moves on', async () => {
    await probe(947);
    act(() => void window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab' })));
    // Drawn in the key's own handler, not when an observer reports a frame later.
    expect(screen.getByText('card drawn')).toBeInTheDocument();
    expect(FakeObserver.instances.every((o) => o.disconnected)).toBe(true);
  });

  it('does so after a scroll too, while the observer has not reported yet (a focus that scrolled the page)', async () => {
    await probe(947);
    act(() => void window.dispatchEvent(new Event('scroll')));
    expect(screen.getByText('card outline')).toBeInTheDocument();
    act(() => void window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab' })));
    expect(screen.getByText('card drawn')).toBeInTheDocument();
  });

  it('leaves cards further than a screen away to the observer, and other keys to the page', async () => {
    await probe(2000);
    act(() => void window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab' })));
    act(() => void window.dispatchEvent(new KeyboardEvent('keydown', { key: 'a' })));
    expect(screen.getByText('card outline')).toBeInTheDocument();
  });

  it('takes a tap as moving: a deleted card may pull an outline up onto the screen', async () => {
    await probe(947);
    act(() => void window.dispatchEvent(new Event('pointerdown')));
    expect(FakeObserver.instances).toHaveLength(1);
  });

  it('watches later cards at once when the user has already moved', async () => {
    await probe(2000);
    act(() => void window.dispatchEvent(new Event('scroll')));
    const { useNearScreen } = await import('./use-near-screen');
    function Later() {
      const ref = useRef<HTMLDivElement>(null);
      return <div ref={ref}>{useNearScreen(ref) ? 'later drawn' : 'later outline'}</div>;
    }
    render(<Later />);
    expect(screen.getByText('later outline')).toBeInTheDocument();
    expect(FakeObserver.instances).toHaveLength(1);
    expect(FakeObserver.instances[0]!.observed.size).toBe(2);
  });

  it('stops watching a card that leaves the page before it was drawn', async () => {
    const { unmount } = await probe(947);
    act(() => void window.dispatchEvent(new Event('scroll')));
    unmount();
    expect(FakeObserver.instances[0]!.observed.size).toBe(0);
    expect(FakeObserver.instances[0]!.disconnected).toBe(true);
  });

  it('forgets a page left before the user moved: a later scroll elsewhere watches nothing', async () => {
    const { unmount } = await probe(947);
    unmount();
    act(() => void window.dispatchEvent(new Event('scroll')));
    expect(FakeObserver.instances).toHaveLength(0);
  });

  it('draws everything where the browser has no IntersectionObserver', async () => {
    vi.stubGlobal('IntersectionObserver', undefined);
    await probe(5000);
    expect(screen.getByText('card drawn')).toBeInTheDocument();
  });
});

import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { failure } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
import type { CreateStackEngine, StackEngine, StackImageSource, ViewerCallbacks } from '../engine/stack-engine';
import type { DicomJson } from '../utils/series-instances';
import { qidoInstance } from '../utils/series-testing';
import type { WindowLevel } from '../utils/window-level';
import { StackViewer } from './stack-viewer';

const STUDY = '1.2.3';
const SERIES = '1.2.3.4';
const BASE = `/api/dicomweb/studies/${STUDY}/series/${SERIES}`;
const DEFAULT_WINDOW: WindowLevel = { width: 400, center: 40 };

/** Stands in for Cornerstone (jsdom has no WebGL): keeps the state a stack viewport would and reports it. */
class FakeEngine implements StackEngine {
  images: readonly StackImageSource[] = [];
  index = 0;
  window: WindowLevel = DEFAULT_WINDOW;
  invert = false;
  zoom = 1;
  // As Cornerstone's viewer starts: window/level on the left button, until the page says otherwise.
  mode = 'windowLevel';
  destroyed = false;
  private readonly callbacks: ViewerCallbacks;
  constructor(callbacks: ViewerCallbacks) {
    this.callbacks = callbacks;
  }
  protected emit() {
    this.callbacks.onChange({
      frame: this.index,
      frames: this.images.length,
      window: this.window,
      invert: this.invert,
      zoom: this.zoom,
    });
  }
  async openStack(images: readonly StackImageSource[]) {
    this.images = images;
    this.emit();
    return { defaultWindow: DEFAULT_WINDOW };
  }
  setMode(mode: string) {
    this.mode = mode;
  }
  // As a stack viewport does: the window set stays when the slice changes.
  setWindow(window: WindowLevel | null) {
    this.window = window ?? DEFAULT_WINDOW;
    this.emit();
  }
  toggleInvert() {
    this.invert = !this.invert;
    this.emit();
  }
  zoomBy(factor: number) {
    this.zoom *= factor;
    this.emit();
  }
  reset() {
    this.zoom = 1;
    this.window = DEFAULT_WINDOW;
    this.emit();
  }
  async goToFrame(index: number) {
    const n = this.images.length;
    this.index = ((index % n) + n) % n;
    this.emit();
  }
  destroy() {
    this.destroyed = true;
  }
}

/**
 * Draws a slice only when the test says so, as a slow decoder would, so that renders arrive after
 * later presses; each move settles once its slice is drawn (Cornerstone's setImageIdIndex).
 */
class DeferredEngine extends FakeEngine {
  readonly asked: number[] = [];
  private readonly queue: Array<{ index: number; drawn: () => void }> = [];
  override goToFrame(index: number) {
    this.asked.push(index);
    return new Promise<void>((drawn) => this.queue.push({ index, drawn }));
  }
  renderNext() {
    const next = this.queue.shift()!;
    this.index = next.index;
    this.emit();
    next.drawn();
  }
  /** As Cornerstone does with loads that finish late: only the slice asked for last is drawn. */
  renderLatest() {
    const moves = this.queue.splice(0);
    this.index = moves.at(-1)!.index;
    this.emit();
    for (const move of moves) move.drawn();
  }
}

/** A 12-slice CT series (instance numbers given out of order), its metadata, and the fake engine it opens in. */
function serveSeries(instances: DicomJson[] = defaultInstances()) {
  const queries: URLSearchParams[] = [];
  server.use(
    http.get(`${BASE}/instances`, ({ request }) => {
      queries.push(new URL(request.url).searchParams);
      return HttpResponse.json(instances);
    }),
    http.get(`${BASE}/metadata`, () =>
      HttpResponse.json(
        instances.map((json) => ({
          ...json,
          '00080060': { vr: 'CS', Value: ['CT'] },
          // The report has no rows: it is not a slice.
          ...(json['00080018']?.Value?.[0] === 'sr' ? {} : { '00280010': { vr: 'US', Value: [512] } }),
        })),
      ),
    ),
  );
  let engine: FakeEngine | null = null;
  const createEngine: CreateStackEngine = async (_element, callbacks) => (engine = new FakeEngine(callbacks));
  return { queries, createEngine, engine: () => engine! };
}

function defaultInstances(): DicomJson[] {
  const list = Array.from({ length: 12 }, (_, i) => qidoInstance(`sop${i + 1}`, i + 1, { location: -10 + i * 2.5 }));
  return [...list.reverse(), qidoInstance('sr', null)];
}

async function setup(instances?: DicomJson[]) {
  const served = serveSeries(instances);
  const user = userEvent.setup();
  renderWithProviders(<StackViewer studyUid={STUDY} seriesUid={SERIES} createEngine={served.createEngine} />);
  await waitFor(() => expect(screen.getByTestId('stack-viewport')).toHaveAttribute('data-state', 'rendered'));
  return { ...served, user };
}

const position = () => screen.getByTestId('slice-position').textContent;

describe('StackViewer (docs/product.md › Stack viewer)', () => {
  it('adds up key presses quicker than the renders: a late render of a slice passed on the way does not pull the target back', async () => {
    serveSeries();
    let engine: DeferredEngine | null = null;
    const createEngine: CreateStackEngine = async (_element, callbacks) => (engine = new DeferredEngine(callbacks));
    const user = userEvent.setup();
    renderWithProviders(<StackViewer studyUid={STUDY} seriesUid={SERIES} createEngine={createEngine} />);
    await waitFor(() => expect(screen.getByTestId('stack-viewport')).toHaveAttribute('data-state', 'rendered'));
    await user.keyboard('{ArrowDown}{ArrowDown}');
    act(() => engine!.renderNext()); // slice 2 of 12 drawn after the second press
    await user.keyboard('{ArrowDown}');
    act(() => engine!.renderNext());
    act(() => engine!.renderNext());
    expect(engine!.asked).toEqual([1, 2, 3]);
    expect(position()).toMatch(/^4 \/ 12/);
  });

  it('lists the series through QIDO and opens its slices in Instance Number order, leaving out objects without pixels', async () => {
    const { queries, engine } = await setup();
    expect(queries[0]?.get('includefield')).toContain('00201041');
    const images = engine().images.map((i) => ('frameUrl' in i ? i : null));
    expect(images.map((i) => i?.frameUrl)).toEqual(
      Array.from({ length: 12 }, (_, i) => `${BASE}/instances/sop${i + 1}/frames/1`),
    );
    expect(images[0]?.metadata['00280010']).toEqual({ vr: 'US', Value: [512] });
    expect(position()).toBe('1 / 12 · Slice -10 mm');
    expect(screen.getByRole('img', { name: 'CT series, image 1 / 12 · Slice -10 mm' })).toBeInTheDocument();
  });

  it('steps with the arrow keys, pages by 10 and jumps to the ends, never past them', async () => {
    const { user } = await setup();
    await user.keyboard('{ArrowDown}');
    expect(position()).toBe('2 / 12 · Slice -7.5 mm');
    await user.keyboard('{ArrowRight}{ArrowRight}');
    expect(position()).toMatch(/^4 \/ 12/);
    await user.keyboard('{ArrowUp}');
    expect(position()).toMatch(/^3 \/ 12/);
    await user.keyboard('{PageDown}');
    expect(position()).toBe('12 / 12 · Slice 17.5 mm');
    await user.keyboard('{ArrowDown}');
    expect(position()).toMatch(/^12 \/ 12/);
    await user.keyboard('{Home}');
    expect(position()).toMatch(/^1 \/ 12/);
    await user.keyboard('{End}');
    expect(position()).toMatch(/^12 \/ 12/);
  });

  it('moves with the labelled slice slider', async () => {
    const { user } = await setup();
    const slider = screen.getByRole('slider', { name: 'Slice' });
    expect(slider).toHaveAttribute('aria-valuetext', 'Slice 1 of 12');
    slider.focus();
    await user.keyboard('{ArrowRight}{ArrowRight}');
    expect(position()).toMatch(/^3 \/ 12/);
    expect(slider).toHaveAttribute('aria-valuetext', 'Slice 3 of 12');
  });

  it('applies a preset to the whole stack: it stays pressed while paging through the slices', async () => {
    const { user, engine } = await setup();
    await user.click(screen.getByRole('button', { name: 'Lung window, W 1500 L -600 (2)' }));
    expect(engine().window).toEqual({ width: 1500, center: -600 });
    await user.keyboard('{ArrowDown}{ArrowDown}');
    expect(screen.getByRole('button', { name: 'Lung window, W 1500 L -600 (2)' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await user.keyboard('4');
    expect(engine().window).toEqual({ width: 80, center: 40 });
    await user.keyboard('1');
    expect(engine().window).toEqual(DEFAULT_WINDOW);
  });

  it('plays the stack as cine at the chosen speed and pauses', async () => {
    await setup();
    // The clock is faked only once the viewer is up, and without following real time: a slow
    // machine between the click and the first check must not count as frames (it did, in CI).
    vi.useFakeTimers();
    try {
      fireEvent.click(screen.getByRole('button', { name: 'Play' }));
      await act(() => vi.advanceTimersByTimeAsync(1000 / 15 - 5));
      expect(position()).toMatch(/^1 \/ 12/);
      await act(() => vi.advanceTimersByTimeAsync(10));
      expect(position()).toMatch(/^2 \/ 12/);
      await act(() => vi.advanceTimersByTimeAsync(1000 / 15));
      expect(position()).toMatch(/^3 \/ 12/);
      fireEvent.click(screen.getByRole('button', { name: 'Pause' }));
      await act(() => vi.advanceTimersByTimeAsync(500));
      expect(position()).toMatch(/^3 \/ 12/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops the cine at any use of the slider, also a key that lands on the slice already shown', async () => {
    const { user } = await setup();
    const slider = screen.getByRole('slider', { name: 'Slice' });
    slider.focus();
    // The slider's last own value is slice 2; the last slice is then reached by the viewer's End key.
    fireEvent.keyDown(slider, { key: 'ArrowRight' });
    expect(position()).toMatch(/^2 \/ 12/);
    slider.blur();
    await user.keyboard('{End}');
    expect(position()).toMatch(/^12 \/ 12/);
    vi.useFakeTimers();
    try {
      fireEvent.click(screen.getByRole('button', { name: 'Play' }));
      slider.focus();
      // Already at the last slice: MUI's value does not change, so only its commit can stop the cine.
      fireEvent.keyDown(slider, { key: 'End' });
      expect(screen.getByRole('button', { name: 'Play' })).toBeInTheDocument();
      await act(() => vi.advanceTimersByTimeAsync(500));
      expect(position()).toMatch(/^12 \/ 12/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops the cine on the slice shown, at Pause or at a slider key that lands on it, while the next slice loads', async () => {
    let engine: DeferredEngine | null = null;
    serveSeries();
    const createEngine: CreateStackEngine = async (_element, callbacks) => (engine = new DeferredEngine(callbacks));
    renderWithProviders(<StackViewer studyUid={STUDY} seriesUid={SERIES} createEngine={createEngine} />);
    await waitFor(() => expect(screen.getByTestId('stack-viewport')).toHaveAttribute('data-state', 'rendered'));
    const slider = screen.getByRole('slider', { name: 'Slice' });
    fireEvent.keyDown(window, { key: 'End' });
    act(() => engine!.renderNext());
    expect(position()).toMatch(/^12 \/ 12/);

    vi.useFakeTimers();
    try {
      for (const stop of [
        () => fireEvent.click(screen.getByRole('button', { name: 'Pause' })),
        () => {
          slider.focus();
          fireEvent.keyDown(slider, { key: 'End' });
        },
      ]) {
        fireEvent.click(screen.getByRole('button', { name: 'Play' }));
        // The cine's tick asks for the first slice, which is still loading when the cine is stopped.
        await act(() => vi.advanceTimersByTimeAsync(1000 / 15));
        expect(engine!.asked.at(-1)).toBe(0);
        stop();
        expect(screen.getByRole('button', { name: 'Play' })).toBeInTheDocument();
        // The slice on screen is asked for again, so the viewer drops the first slice's load.
        expect(engine!.asked.at(-1)).toBe(11);
        act(() => engine!.renderLatest());
        expect(position()).toMatch(/^12 \/ 12/);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('switches the drag tool with its labelled buttons and keys (scroll is the default, for one-finger swipes)', async () => {
    const { user, engine } = await setup();
    expect(screen.getByRole('button', { name: 'Scroll slices (S)' })).toHaveAttribute('aria-pressed', 'true');
    expect(engine().mode).toBe('scroll');
    await user.click(screen.getByRole('button', { name: 'Window/level (W)' }));
    expect(engine().mode).toBe('windowLevel');
    await user.keyboard('s');
    expect(engine().mode).toBe('scroll');
    await user.click(screen.getByRole('button', { name: 'Invert' }));
    expect(engine().invert).toBe(true);
  });

  it('says so when the series is not there or not shared with the caller (404)', async () => {
    server.use(
      http.get(`${BASE}/instances`, () => failure(404, 'Series not found')),
      http.get(`${BASE}/metadata`, () => failure(404, 'Series not found')),
    );
    const createEngine: CreateStackEngine = async (_element, callbacks) => new FakeEngine(callbacks);
    renderWithProviders(<StackViewer studyUid={STUDY} seriesUid={SERIES} createEngine={createEngine} />);
    expect(await screen.findByTestId('stack-error')).toHaveTextContent(
      'This series does not exist, or it is not shared with you.',
    );
  });

  it('shows "nothing to display" for a series of reports only', async () => {
    const { createEngine } = serveSeries([qidoInstance('sr', 1)]);
    renderWithProviders(<StackViewer studyUid={STUDY} seriesUid={SERIES} createEngine={createEngine} />);
    expect(await screen.findByTestId('stack-error')).toHaveTextContent('Nothing to display');
  });

  it('pages through whole files in the order given, each frame in turn, read without the bearer when told so', async () => {
    let engine: FakeEngine | null = null;
    const createEngine: CreateStackEngine = async (_element, callbacks) => (engine = new FakeEngine(callbacks));
    const slices: number[] = [];
    const onRefused = vi.fn();
    const files = {
      files: [
        { id: 'a', url: '/api/external/images/a/content', frames: 1 },
        { id: 'b', url: '/api/external/images/b/content', frames: 2 },
      ],
      modality: 'MR',
      authenticate: false,
      onRefused,
    };
    const user = userEvent.setup();
    renderWithProviders(<StackViewer files={files} createEngine={createEngine} onSlice={(i) => slices.push(i)} />);
    await waitFor(() => expect(screen.getByTestId('stack-viewport')).toHaveAttribute('data-state', 'rendered'));
    expect(engine!.images).toEqual([
      { fileUrl: '/api/external/images/a/content', frame: 1, frames: 1, authenticate: false, onRefused },
      { fileUrl: '/api/external/images/b/content', frame: 1, frames: 2, authenticate: false, onRefused },
      { fileUrl: '/api/external/images/b/content', frame: 2, frames: 2, authenticate: false, onRefused },
    ]);
    expect(position()).toBe('1 / 3');
    await user.keyboard('{ArrowDown}');
    await waitFor(() => expect(position()).toBe('2 / 3 · Frame 1/2'));
    expect(slices.at(-1)).toBe(1);
    expect(screen.getByRole('img', { name: 'MR images, image 2 / 3 · Frame 1/2' })).toBeInTheDocument();
  });
});

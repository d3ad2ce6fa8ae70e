import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DelayedCircularProgress, DelayedLinearProgress, PROGRESS_DELAY_MS } from './delayed-progress';

afterEach(() => {
  vi.useRealTimers();
});

/** MUI's animated parts: what must not be in the page before the delay has passed. */
const animated = (container: HTMLElement) =>
  container.querySelectorAll('.MuiCircularProgress-root, .MuiLinearProgress-root').length;

describe('DelayedCircularProgress', () => {
  it('holds its box and name without the spinner until the delay passes, then spins without the dash animation', () => {
    vi.useFakeTimers();
    const { container } = render(<DelayedCircularProgress size={28} aria-label="Loading page" />);
    const waiting = screen.getByRole('progressbar', { name: 'Loading page' });
    expect(animated(container)).toBe(0);
    expect(getComputedStyle(waiting).width).toBe('28px');
    expect(getComputedStyle(waiting).height).toBe('28px');

    act(() => vi.advanceTimersByTime(PROGRESS_DELAY_MS - 1));
    expect(animated(container)).toBe(0);

    act(() => vi.advanceTimersByTime(1));
    const spinner = screen.getByRole('progressbar', { name: 'Loading page' });
    expect(spinner).toHaveClass('MuiCircularProgress-root', 'MuiCircularProgress-indeterminate');
    // disableShrink: the circle keeps a fixed dash, so only the compositor's rotation runs.
    expect(container.querySelector('.MuiCircularProgress-circleDisableShrink')).not.toBeNull();
  });

  it('stays out of the accessibility tree while waiting when the spinner is hidden from it', () => {
    vi.useFakeTimers();
    render(<DelayedCircularProgress aria-hidden />);
    expect(screen.queryByRole('progressbar')).toBeNull();
    act(() => vi.advanceTimersByTime(PROGRESS_DELAY_MS));
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(document.querySelector('.MuiCircularProgress-root')).not.toBeNull();
  });

  it("gives the waiting box only the name, none of the spinner's other props", () => {
    vi.useFakeTimers();
    render(<DelayedCircularProgress aria-label="Loading image" thickness={5} color="inherit" sx={{ color: 'red' }} />);
    const waiting = screen.getByRole('progressbar', { name: 'Loading image' });
    expect(waiting.getAttributeNames().sort()).toEqual(['aria-label', 'class', 'role']);
    expect(getComputedStyle(waiting).color).not.toBe('red');
  });

  it('leaves no timer behind when the load ends first', () => {
    vi.useFakeTimers();
    const { unmount } = render(<DelayedCircularProgress aria-label="Loading page" />);
    expect(vi.getTimerCount()).toBe(1);
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('DelayedLinearProgress', () => {
  it('keeps its 4 px row while waiting, then shows the bar', () => {
    vi.useFakeTimers();
    const { container } = render(<DelayedLinearProgress aria-label="Loading images" />);
    const waiting = screen.getByRole('progressbar', { name: 'Loading images' });
    expect(animated(container)).toBe(0);
    expect(getComputedStyle(waiting).height).toBe('4px');
    expect(getComputedStyle(waiting).display).toBe('block');

    act(() => vi.advanceTimersByTime(PROGRESS_DELAY_MS));
    expect(screen.getByRole('progressbar', { name: 'Loading images' })).toHaveClass('MuiLinearProgress-root');
  });
});

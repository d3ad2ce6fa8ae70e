import { act, render, screen } from '@testing-library/react';
import { Component, Suspense, type ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { lazyPage, pageLoader } from './lazy-page';

/** A page module whose import the test settles by hand. */
function deferredImport() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const module = { default: () => <h1>The page</h1> };
  const loaded = new Promise<typeof module>((res, rej) => {
    resolve = () => res(module);
    reject = rej;
  });
  return { load: vi.fn(() => loaded), resolve, reject };
}

/** Counts each render of the fallback: a fallback committed even once means React throttles the reveal. */
function fallbackCounter() {
  const renders = { count: 0 };
  function Fallback() {
    renders.count += 1;
    return <p>Loading page</p>;
  }
  return { renders, Fallback };
}

class Boundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null };
  static getDerivedStateFromError = (error: Error) => ({ error });
  override render() {
    return this.state.error ? <p role="alert">{(this.state.error as Error).message}</p> : this.props.children;
  }
}

describe('lazyPage', () => {
  it('renders at once, with no fallback, once its chunk has arrived', async () => {
    const chunk = deferredImport();
    const Page = lazyPage(chunk.load, 'Page');
    const started = pageLoader(Page)!();
    chunk.resolve();
    await started;
    const { renders, Fallback } = fallbackCounter();
    render(
      <Suspense fallback={<Fallback />}>
        <Page />
      </Suspense>,
    );
    // Synchronously, in the first render: React.lazy would show the fallback here.
    expect(screen.getByRole('heading', { name: 'The page' })).toBeInTheDocument();
    expect(renders.count).toBe(0);
    expect(chunk.load).toHaveBeenCalledTimes(1);
  });

  it('suspends until its chunk arrives when rendered before, and imports it once', async () => {
    const chunk = deferredImport();
    const Page = lazyPage(chunk.load, 'Page');
    const { renders, Fallback } = fallbackCounter();
    // Awaited: React's act runs a suspended component's retry only in an awaited scope.
    await act(async () => {
      render(
        <Suspense fallback={<Fallback />}>
          <Page />
        </Suspense>,
      );
    });
    expect(screen.getByText('Loading page')).toBeInTheDocument();
    // A preload after the render shares the render's import.
    void pageLoader(Page)!();
    await act(async () => chunk.resolve());
    expect(await screen.findByRole('heading', { name: 'The page' })).toBeInTheDocument();
    expect(renders.count).toBeGreaterThan(0);
    expect(chunk.load).toHaveBeenCalledTimes(1);
  });

  it('throws a failed import to the error boundary, and keeps the failure for later renders', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const chunk = deferredImport();
    const Page = lazyPage(chunk.load, 'Page');
    const failed = pageLoader(Page)!();
    chunk.reject(new Error('Failed to fetch dynamically imported module'));
    await failed.catch(() => undefined);
    const tree = (
      <Boundary>
        <Suspense fallback={<p>Loading page</p>}>
          <Page />
        </Suspense>
      </Boundary>
    );
    const { unmount } = render(tree);
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to fetch dynamically imported module');
    unmount();
    render(tree);
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to fetch dynamically imported module');
    expect(chunk.load).toHaveBeenCalledTimes(1);
  });

  it('names the page for React DevTools, and knows no loader for other components', () => {
    const Page = lazyPage(deferredImport().load, 'ViewImages');
    expect(Page.displayName).toBe('ViewImages');
    expect(pageLoader(() => null)).toBeUndefined();
    expect(pageLoader('div')).toBeUndefined();
  });
});

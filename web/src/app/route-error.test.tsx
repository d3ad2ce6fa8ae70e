import { act, screen } from '@testing-library/react';
import { lazy, Suspense } from 'react';
import { Outlet } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes } from '../testing/test-utils';

function Broken(): never {
  throw new Error('render failed');
}

// A page whose chunk cannot be fetched: what a tab sees after a release replaced the script files.
const Missing = lazy(() => Promise.reject(new Error('Failed to fetch dynamically imported module')));

const routes = [
  {
    path: '/',
    element: (
      <Suspense fallback={<p>Loading</p>}>
        <Outlet />
      </Suspense>
    ),
    children: [
      { path: 'broken', element: <Broken /> },
      { path: 'missing', element: <Missing /> },
      { path: 'fine', element: <h1>Fine page</h1> },
    ],
  },
];

describe('RoutesWithBoundary', () => {
  afterEach(() => vi.restoreAllMocks());

  it('shows "Something went wrong" with Reload for a page that throws, and the next page once the user moves on', async () => {
    // React reports the caught error on the console; the test is about what the user sees.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { router } = renderRoutes(routes, '/broken');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Something went wrong');
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
    await act(() => router.navigate('/fine'));
    expect(await screen.findByRole('heading', { name: 'Fine page' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('clears the error for a new location on the same path too (Back, Forward, another query)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let fail = true;
    function Flaky() {
      if (fail) throw new Error('render failed once');
      return <h1>Recovered page</h1>;
    }
    const { router } = renderRoutes([{ path: '/flaky', element: <Flaky /> }], '/flaky');
    expect(await screen.findByRole('alert')).toHaveTextContent('Something went wrong');
    fail = false;
    await act(() => router.navigate('/flaky?page=2'));
    expect(await screen.findByRole('heading', { name: 'Recovered page' })).toBeInTheDocument();
  });

  it('shows the same for a page whose chunk fails to load', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderRoutes(routes, '/missing');
    expect(await screen.findByRole('alert')).toHaveTextContent('Something went wrong');
  });
});

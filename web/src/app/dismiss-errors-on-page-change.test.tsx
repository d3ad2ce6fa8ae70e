import { act } from '@testing-library/react';
import { toast as toastify } from 'react-toastify/unstyled';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dismissErrorToasts, toast } from '../lib/notify';
import { renderRoutes } from '../testing/test-utils';
import { PAGE_CHANGE_GRACE_MS, useDismissErrorToastsOnPageChange } from './dismiss-errors-on-page-change';

function Page({ name }: { name: string }) {
  useDismissErrorToastsOnPageChange();
  return <h1>{name}</h1>;
}

afterEach(() => {
  dismissErrorToasts();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('useDismissErrorToastsOnPageChange', () => {
  it('closes the errors of the page left behind, but not one raised just before the move', async () => {
    vi.useFakeTimers();
    const dismiss = vi.spyOn(toastify, 'dismiss');
    const { router } = renderRoutes(
      [
        { path: '/a', element: <Page name="A" /> },
        { path: '/b', element: <Page name="B" /> },
        { path: '/c', element: <Page name="C" /> },
      ],
      '/a',
    );
    expect(dismiss).not.toHaveBeenCalled();
    const stale = toast.error('stale');
    vi.advanceTimersByTime(PAGE_CHANGE_GRACE_MS + 1);
    const why = toast.error('Logout failed. Please try again.');
    await act(() => router.navigate('/b'));
    expect(dismiss).toHaveBeenCalledWith(stale);
    expect(dismiss).not.toHaveBeenCalledWith(why);
    dismiss.mockClear();
    await act(() => router.navigate('/b?page=2'));
    vi.advanceTimersByTime(PAGE_CHANGE_GRACE_MS + 1);
    await act(() => router.navigate('/b?page=3'));
    expect(dismiss).not.toHaveBeenCalled();
    await act(() => router.navigate('/c'));
    expect(dismiss).toHaveBeenCalledWith(why);
  });
});

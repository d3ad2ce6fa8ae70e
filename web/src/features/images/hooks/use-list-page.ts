import { useCallback, useEffect, useState } from 'react';
import type { OpeningRead } from '../api/opening-read';

/**
 * A list's page number, and whether this mount opened with the start-up read of `key` (then the list
 * is not asked again on mount; api/opening-read.ts). Any page change ends that: from then on the list
 * reads as usual. The read is taken once the page has mounted: a render React discards must still
 * find it.
 */
export function useListPage<K>(read: OpeningRead<K>, key: K) {
  const [page, setPageState] = useState(1);
  const [openedWithPrefetch, setOpenedWithPrefetch] = useState(() => read.has(key));
  useEffect(() => {
    if (openedWithPrefetch) read.take();
  }, [openedWithPrefetch, read]);
  const setPage = useCallback((next: number) => {
    setOpenedWithPrefetch(false);
    setPageState(next);
  }, []);
  return { page, setPage, openedWithPrefetch };
}

/** A revoke or delete can empty the last page: step back to the page that now is the last. */
export function useStepBackToLastPage(page: number, totalPages: number | undefined, setPage: (page: number) => void) {
  useEffect(() => {
    if (totalPages && totalPages > 0 && page > totalPages) setPage(totalPages);
  }, [page, totalPages, setPage]);
}

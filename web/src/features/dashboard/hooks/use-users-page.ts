import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { useDebouncedValue } from '../../../lib/use-debounced-value';
import { useListUsersQuery, type UsersSort } from '../api/list-users';

/** docs/product.md › Dashboard: the table offers 5, 10 or 25 rows, 5 by default (kept zod-free here). */
export const USERS_PAGE_SIZES = [5, 10, 25] as const;

export type UsersPageStatus = 'loading' | 'ready' | 'forbidden' | 'error';

/**
 * Server-side paging, sorting and search of the users table. `page` is 0-based, as MUI counts. The
 * page is a cached query tagged `Users`: an activation, deactivation or delete reads it again.
 */
export function useUsersPage(enabled: boolean) {
  const [page, setPage] = useState(0);
  const [limit, setLimit] = useState<number>(USERS_PAGE_SIZES[0]);
  const [sort, setSort] = useState<UsersSort>('createdAt');
  const [order, setOrder] = useState<'asc' | 'desc'>('desc');
  const [search, setSearchNow] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim(), 300);
  // The rows on screen stay while the next page, sort or search loads. Others register and change
  // accounts too: a page shown again is read again (this app's own changes invalidate `Users`).
  const { data, currentData, error, isError, refetch } = useListUsersQuery(
    { page: page + 1, limit, sort, order, search: debouncedSearch },
    { skip: !enabled, refetchOnMountOrArgChange: true },
  );

  let status: UsersPageStatus = 'loading';
  if (isError) status = error instanceof ApiError && error.status === 403 ? 'forbidden' : 'error';
  else if (data) status = 'ready';

  // A page emptied by a delete: step back to the last page that still has rows.
  useEffect(() => {
    if (currentData && currentData.items.length === 0 && page > 0) {
      setPage(Math.max(0, (currentData.pagination?.totalPages ?? 1) - 1));
    }
  }, [currentData, page]);

  // A new search starts from the first page.
  useEffect(() => setPage(0), [debouncedSearch]);

  /** A header click toggles the order of its column; the phone's sort select names the order. */
  const sortBy = useCallback(
    (column: UsersSort, explicitOrder?: 'asc' | 'desc') => {
      if (explicitOrder) {
        setSort(column);
        setOrder(explicitOrder);
      } else if (column === sort) setOrder((o) => (o === 'asc' ? 'desc' : 'asc'));
      else {
        setSort(column);
        setOrder('asc');
      }
      setPage(0);
    },
    [sort],
  );

  const pagination = data?.pagination;
  return {
    rows: data?.items ?? [],
    total: pagination?.totalItems ?? 0,
    /** More rows match than the server pages through: `total` is then the window (10 000). */
    capped: pagination?.totalItemsCapped ?? false,
    status,
    page,
    setPage,
    limit,
    setLimit: (value: number) => {
      setLimit(value);
      setPage(0);
    },
    sort,
    order,
    sortBy,
    search,
    setSearch: setSearchNow,
    reload: () => void refetch(),
  };
}

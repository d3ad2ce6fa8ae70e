import type { Pagination, UserListItem } from '@medshare/contracts';
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { listUsers, type UsersSort } from '../api/list-users';
import { useDebouncedValue } from './use-debounced-value';

/** Spec §9: the dashboard table offers 5, 10 or 25 rows, 5 by default (kept zod-free here). */
export const USERS_PAGE_SIZES = [5, 10, 25] as const;

export type UsersPageStatus = 'loading' | 'ready' | 'forbidden' | 'error';

/** Server-side paging, sorting and search of the users table. `page` is 0-based, as MUI counts. */
export function useUsersPage(enabled: boolean) {
  const [page, setPage] = useState(0);
  const [limit, setLimit] = useState<number>(USERS_PAGE_SIZES[0]);
  const [sort, setSort] = useState<UsersSort>('createdAt');
  const [order, setOrder] = useState<'asc' | 'desc'>('desc');
  const [search, setSearchNow] = useState('');
  const debouncedSearch = useDebouncedValue(search.trim(), 300);
  const [rows, setRows] = useState<UserListItem[]>([]);
  const [pagination, setPagination] = useState<Pagination | undefined>();
  const [status, setStatus] = useState<UsersPageStatus>('loading');
  const [reloadKey, setReloadKey] = useState(0);

  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    setStatus((s) => (s === 'ready' ? s : 'loading'));
    listUsers({ page: page + 1, limit, sort, order, search: debouncedSearch }, controller.signal)
      .then((result) => {
        // A page emptied by a delete: step back to the last page that still has rows.
        if (result.data.length === 0 && page > 0) {
          setPage(Math.max(0, (result.pagination?.totalPages ?? 1) - 1));
          return;
        }
        setRows(result.data);
        setPagination(result.pagination);
        setStatus('ready');
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setStatus(error instanceof ApiError && error.status === 403 ? 'forbidden' : 'error');
      });
    return () => controller.abort();
  }, [enabled, page, limit, sort, order, debouncedSearch, reloadKey]);

  // A new search starts from the first page.
  useEffect(() => setPage(0), [debouncedSearch]);

  const sortBy = useCallback(
    (column: UsersSort) => {
      if (column === sort) setOrder((o) => (o === 'asc' ? 'desc' : 'asc'));
      else {
        setSort(column);
        setOrder('asc');
      }
      setPage(0);
    },
    [sort],
  );

  return {
    rows,
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
    reload: () => setReloadKey((k) => k + 1),
  };
}

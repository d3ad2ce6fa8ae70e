import { useEffect, useState } from 'react';
import { toast } from '../../../lib/notify';
import { useListStudiesQuery } from '../api/list-studies';
import { IMAGES_TOAST } from '../utils/toast-options';

export const STUDIES_PAGE_SIZE = 10;

/** One page of the caller's study cards; read again when shown (others share, verify and revoke). */
export function useStudyList() {
  const [page, setPage] = useState(1);
  const { data, isFetching, isError, error } = useListStudiesQuery(
    { page, limit: STUDIES_PAGE_SIZE },
    { refetchOnMountOrArgChange: true },
  );
  const studies = data?.studies ?? [];
  const pagination = data?.pagination ?? null;

  // A revoke or delete can empty the last page: step back to the page that now is the last.
  useEffect(() => {
    if (pagination && pagination.totalPages > 0 && page > pagination.totalPages) setPage(pagination.totalPages);
  }, [pagination, page]);

  useEffect(() => {
    if (isError) toast.error('Failed to fetch studies', IMAGES_TOAST);
  }, [isError, error]);

  return { studies, pagination, page, setPage, loading: isFetching, failed: isError };
}

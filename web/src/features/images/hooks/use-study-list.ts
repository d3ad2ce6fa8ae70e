import { useEffect, useState } from 'react';
import { toast } from '../../../lib/notify';
import { STUDIES_PAGE_SIZE, studyListOpening, useListStudiesQuery } from '../api/list-studies';
import { useOpeningRead } from '../api/opening-read';
import { IMAGES_TOAST } from '../utils/toast-options';

/** One page of the caller's study cards; read again when shown (others share, verify and revoke). */
export function useStudyList(viewerId: string | undefined) {
  const [page, setPageState] = useState(1);
  const [openedWithPrefetch, leaveOpeningRead] = useOpeningRead(studyListOpening, viewerId);
  const setPage = (next: number) => {
    leaveOpeningRead();
    setPageState(next);
  };
  const { data, isFetching, isError, error } = useListStudiesQuery(
    { page, limit: STUDIES_PAGE_SIZE },
    { refetchOnMountOrArgChange: !openedWithPrefetch },
  );
  const studies = data?.studies ?? [];
  const pagination = data?.pagination ?? null;

  // A revoke or delete can empty the last page: step back to the page that now is the last.
  useEffect(() => {
    if (pagination && pagination.totalPages > 0 && page > pagination.totalPages) {
      leaveOpeningRead();
      setPageState(pagination.totalPages);
    }
  }, [pagination, page, leaveOpeningRead]);

  useEffect(() => {
    if (isError) toast.error('Failed to fetch studies', IMAGES_TOAST);
  }, [isError, error]);

  // Answered at least once (or failed): whether the page has a studies section is known.
  const answered = data !== undefined || isError;
  return { studies, pagination, page, setPage, loading: isFetching, failed: isError, answered };
}

import { useEffect } from 'react';
import { toast } from '../../../lib/notify';
import { STUDIES_PAGE_SIZE, studyListOpening, useListStudiesQuery } from '../api/list-studies';
import { IMAGES_TOAST } from '../utils/toast-options';
import { useListPage, useStepBackToLastPage } from './use-list-page';

/** One page of the caller's study cards; read again when shown (others share, verify and revoke). */
export function useStudyList(viewerId: string | undefined) {
  const { page, setPage, openedWithPrefetch } = useListPage(studyListOpening, viewerId);
  const { data, isFetching, isError, error } = useListStudiesQuery(
    { page, limit: STUDIES_PAGE_SIZE },
    { refetchOnMountOrArgChange: !openedWithPrefetch },
  );
  const studies = data?.studies ?? [];
  const pagination = data?.pagination ?? null;

  useStepBackToLastPage(page, pagination?.totalPages, setPage);

  useEffect(() => {
    if (isError) toast.error('Failed to fetch studies', IMAGES_TOAST);
  }, [isError, error]);

  // Answered at least once (or failed): whether the page has a studies section is known.
  const answered = data !== undefined || isError;
  return { studies, pagination, page, setPage, loading: isFetching, failed: isError, answered };
}

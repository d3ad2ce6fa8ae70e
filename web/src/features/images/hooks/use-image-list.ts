import type { RoleName } from '@medshare/contracts';
import { useEffect, useState } from 'react';
import { toast } from '../../../lib/notify';
import { IMAGES_PAGE_SIZE, imageListOpening, useListImagesQuery } from '../api/list-images';
import { IMAGES_TOAST } from '../utils/toast-options';
import { useListPage, useStepBackToLastPage } from './use-list-page';

/** While a thumbnail is being made after an upload, the list is asked again this often. */
const THUMBNAIL_POLL_MS = 2500;

/**
 * One page of the caller's image list from the server-state cache: a share, verify, revoke,
 * delete or upload anywhere invalidates it, so every screen showing it refreshes.
 */
export function useImageList(role: RoleName | undefined) {
  const { page, setPage, openedWithPrefetch } = useListPage(imageListOpening, role);
  const [waitingForThumbnail, setWaitingForThumbnail] = useState(false);
  const { data, isFetching, isError, error, refetch } = useListImagesQuery(
    { role, page, limit: IMAGES_PAGE_SIZE },
    // Others share, verify and revoke: opening the page or another page of it reads the list again.
    { pollingInterval: waitingForThumbnail ? THUMBNAIL_POLL_MS : 0, refetchOnMountOrArgChange: !openedWithPrefetch },
  );
  const images = data?.images ?? [];
  const pagination = data?.pagination ?? null;

  useEffect(() => {
    setWaitingForThumbnail((data?.images ?? []).some((image) => image.thumbnailStatus === 'pending'));
  }, [data]);

  useStepBackToLastPage(page, pagination?.totalPages, setPage);

  useEffect(() => {
    if (!isError) return;
    console.error('Failed to fetch images');
    toast.error('Failed to fetch images', IMAGES_TOAST);
  }, [isError, error]);

  // Answered at least once (or failed): which cards each section holds is known.
  const answered = data !== undefined || isError;
  return { images, pagination, page, setPage, loading: isFetching, answered, reload: refetch };
}

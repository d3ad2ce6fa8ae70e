import type { Image, Pagination, RoleName } from '@medshare/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { toast } from '../../../lib/notify';
import { listImages } from '../api/list-images';
import { IMAGES_TOAST } from '../utils/toast-options';

export const IMAGES_PAGE_SIZE = 10;
/** While a thumbnail is being made after an upload, the list is asked again this often. */
const THUMBNAIL_POLL_MS = 2500;

export function useImageList(role: RoleName | undefined) {
  const [page, setPage] = useState(1);
  const [images, setImages] = useState<Image[]>([]);
  const [pagination, setPagination] = useState<Pagination | null>(null);
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  const controllerRef = useRef<AbortController | null>(null);

  const reload = useCallback(() => setVersion((v) => v + 1), []);

  useEffect(() => {
    const controller = new AbortController();
    controllerRef.current?.abort();
    controllerRef.current = controller;
    setLoading(true);
    listImages(role, page, IMAGES_PAGE_SIZE, controller.signal)
      .then((result) => {
        const p = result.pagination;
        // A delete can empty the last page: step back to the page that now is the last.
        if (p && p.totalPages > 0 && page > p.totalPages) {
          setPage(p.totalPages);
          return;
        }
        setImages(result.data);
        setPagination(p ?? null);
        setLoading(false);
      })
      .catch((error: unknown) => {
        if (error instanceof DOMException && error.name === 'AbortError') return;
        console.error('Failed to fetch images');
        toast.error('Failed to fetch images', IMAGES_TOAST);
        setLoading(false);
      });
    return () => controller.abort();
  }, [role, page, version]);

  const waitingForThumbnail = images.some((image) => image.thumbnailStatus === 'pending');
  useEffect(() => {
    if (!waitingForThumbnail) return;
    const timer = window.setTimeout(reload, THUMBNAIL_POLL_MS);
    return () => window.clearTimeout(timer);
  }, [waitingForThumbnail, images, reload]);

  return { images, pagination, page, setPage, loading, reload };
}

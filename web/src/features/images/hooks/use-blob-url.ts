import { skipToken } from '@reduxjs/toolkit/query/react';
import { useImageBlobQuery } from '../api/image-content';

export type BlobState = { url: string | null; type: string | null; error: boolean; loading: boolean };

/**
 * An object URL for a content or thumbnail path, fetched with the bearer header through the
 * server-state cache (`imageBlob` in ../api/image-content.ts revokes it when nobody shows it).
 */
export function useBlobUrl(path: string | null): BlobState {
  // `currentData`, not `data`: while another path loads, the previous path's picture must not show.
  const { currentData, isError, isFetching } = useImageBlobQuery(path ?? skipToken);
  if (!path) return { url: null, type: null, error: false, loading: false };
  return {
    url: currentData?.url ?? null,
    type: currentData?.type ?? null,
    error: isError && !currentData,
    loading: isFetching && !currentData,
  };
}

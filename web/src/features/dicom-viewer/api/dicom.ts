import type { DicomMetadata } from '@medshare/contracts';
import { DicomPaths, ImagePaths } from '@medshare/contracts/paths';
import { ApiError, apiBlob } from '../../../lib/api-client';
import { apiSlice, dataOf } from '../../../lib/api-slice';

export const dicomApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Non-PHI attributes for anyone who sees the item; patient fields only for content viewers. */
    getDicomMetadata: build.query<DicomMetadata, string>({
      // DicomPaths are absolute (/api/...); the client adds /api itself.
      query: (id) => ({ url: DicomPaths.metadata(id).replace(/^\/api/, '') }),
      transformResponse: dataOf<DicomMetadata>,
      providesTags: (_result, _error, id) => [{ type: 'Images', id }],
    }),
  }),
});

/**
 * The original DICOM bytes, fetched with the bearer header like every other content read. A plain
 * call, not a cached query: the bytes go straight to the rendering engine, and a store holds no
 * binary data.
 */
export async function fetchDicomBytes(id: string, signal?: AbortSignal): Promise<Uint8Array> {
  const blob = await apiBlob(ImagePaths.content(id), { signal });
  return new Uint8Array(await blob.arrayBuffer());
}

export function loadErrorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 404) return error.message || 'This image does not exist, or it is not shared with you.';
    if (error.status === 403) return error.message || 'You may not view this image.';
    if (error.status === 0) return 'The server could not be reached. Check your connection and try again.';
    return error.message || `The image could not be loaded (HTTP ${error.status}).`;
  }
  return 'The image could not be loaded.';
}

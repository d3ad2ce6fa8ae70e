import { ApiError, apiBlob } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { blobResult, createObjectUrls } from '../../../lib/object-urls';
import type { RootState } from '../../../lib/store';

/** The decrypted bytes of a content or thumbnail path handed out by the list (bearer header only). */
export function fetchImageBlob(path: string, options: { download?: boolean; signal?: AbortSignal } = {}) {
  return apiBlob(path, { query: options.download ? { download: 1 } : undefined, signal: options.signal });
}

/** An object URL for a content or thumbnail path, and the type the server sent it with. */
export type ImageBlob = { url: string; type: string };

/** The object URL alive per content or thumbnail path (`lib/object-urls.ts`). */
const urls = createObjectUrls();

export const imageContentApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    imageBlob: build.query<ImageBlob, string>({
      queryFn: async (path, { signal, getState }) => {
        const read = await blobResult(() => fetchImageBlob(path, { signal }));
        if ('error' in read) return read;
        // The entry can go while the bytes were on their way (logout): then no URL is made that
        // nothing would revoke.
        if (imageContentApi.endpoints.imageBlob.select(path)(getState() as RootState).isUninitialized) {
          return { error: new ApiError(0, '') };
        }
        return { data: { url: urls.hold(path, read.data), type: read.data.type } };
      },
      // Thumbnails stay for a page flip and back; bytes nobody shows are let go after half a minute.
      keepUnusedDataFor: 30,
      async onCacheEntryAdded(path, { cacheEntryRemoved }) {
        await cacheEntryRemoved;
        urls.release(path);
      },
    }),
  }),
});

export const { useImageBlobQuery } = imageContentApi;

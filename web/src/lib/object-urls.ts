import { ApiError } from './api-client.ts';

/**
 * Object URLs for the bytes a cache entry holds, one alive per key: the cache keeps only the string
 * (the store stays plain data), and the URL is revoked when a refetch replaces it or the entry goes
 * (unused past `keepUnusedDataFor`, or the session's cache reset), so no decrypted bytes outlive the
 * screens that show them. Used by image content and the share link page's files.
 */
export function createObjectUrls() {
  const live = new Map<string, string>();
  function release(key: string) {
    const url = live.get(key);
    if (url) URL.revokeObjectURL(url);
    live.delete(key);
  }
  return {
    /** The URL of these bytes under `key`, revoking the one it replaces. */
    hold(key: string, blob: Blob): string {
      release(key);
      const url = URL.createObjectURL(blob);
      live.set(key, url);
      return url;
    },
    release,
  };
}

/**
 * A blob read as a `queryFn` result: a refused read is its `ApiError`, an aborted one (its last
 * subscriber left) an empty `ApiError` that nobody sees, as `apiBaseQuery` does for JSON.
 */
export async function blobResult(read: () => Promise<Blob>): Promise<{ data: Blob } | { error: ApiError }> {
  try {
    return { data: await read() };
  } catch (error) {
    if (error instanceof ApiError) return { error };
    if (error instanceof DOMException && error.name === 'AbortError') return { error: new ApiError(0, '') };
    throw error;
  }
}

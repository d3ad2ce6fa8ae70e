import { apiBlob } from '../../../lib/api-client';

/** The decrypted bytes of a content or thumbnail path handed out by the list (bearer header only). */
export function fetchImageBlob(path: string, options: { download?: boolean; signal?: AbortSignal } = {}) {
  return apiBlob(path, { query: options.download ? { download: 1 } : undefined, signal: options.signal });
}

import { useEffect, useState } from 'react';
import { fetchImageBlob } from '../api/image-content';

export type BlobState = { url: string | null; type: string | null; error: boolean; loading: boolean };

/**
 * Fetches a content or thumbnail path with the bearer header and hands out an object URL for it;
 * the URL is revoked when the path changes or the component goes away.
 */
export function useBlobUrl(path: string | null): BlobState {
  const [state, setState] = useState<BlobState>({ url: null, type: null, error: false, loading: Boolean(path) });

  useEffect(() => {
    if (!path) {
      setState({ url: null, type: null, error: false, loading: false });
      return;
    }
    const controller = new AbortController();
    let url: string | null = null;
    setState({ url: null, type: null, error: false, loading: true });
    fetchImageBlob(path, { signal: controller.signal })
      .then((blob) => {
        url = URL.createObjectURL(blob);
        setState({ url, type: blob.type, error: false, loading: false });
      })
      .catch((error: unknown) => {
        if (error instanceof DOMException && error.name === 'AbortError') return;
        setState({ url: null, type: null, error: true, loading: false });
      });
    return () => {
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [path]);

  return state;
}

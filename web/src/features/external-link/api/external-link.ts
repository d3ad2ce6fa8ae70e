import type { ExternalLinkStatus, ExternalView } from '@medshare/contracts/external-shares';
import { ExternalSharePaths } from '@medshare/contracts/paths';
import { ApiError, apiBlob } from '../../../lib/api-client';
import { apiSlice, dataOf } from '../../../lib/api-slice';
import { blobResult, createObjectUrls } from '../../../lib/object-urls';
import type { RootState } from '../../../lib/store';

/** Paths under /api, as `apiRequest` takes them. */
const under = (path: string) => path.replace(/^\/api/, '');

/** Every call of the link page goes without the bearer header: a signed-in session has no part in a link. */
const noSession = { auth: false, handleSessionExpiry: false } as const;

/** One object URL alive per path, revoked when its cache entry goes (`lib/object-urls.ts`). */
const urls = createObjectUrls();

/**
 * The link holder's calls (`docs/architecture.md` › Sharing with someone without an account). The token
 * goes in a JSON body, never a URL; status and code are mutations so nothing caches them by token.
 */
export const externalLinkApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    linkStatus: build.mutation<ExternalLinkStatus, string>({
      query: (token) => ({ url: under(ExternalSharePaths.link), method: 'POST', body: { token }, ...noSession }),
      transformResponse: dataOf<ExternalLinkStatus>,
    }),
    /** The code: the answer sets the httpOnly link cookie and holds what the share shows. */
    openLink: build.mutation<ExternalView, { token: string; code: string }>({
      query: (body) => ({ url: under(ExternalSharePaths.session), method: 'POST', body, ...noSession }),
      transformResponse: dataOf<ExternalView>,
    }),
    /** Ends the link's cookie in this browser (`Close`): the code is needed again here. */
    closeLink: build.mutation<null, void>({
      query: () => ({ url: under(ExternalSharePaths.session), method: 'DELETE', keepalive: true, ...noSession }),
      transformResponse: () => null,
    }),
    /** What the share holds, with the cookie of an earlier code in this browser (a reload). */
    externalView: build.query<ExternalView, void>({
      query: () => ({ url: under(ExternalSharePaths.view), ...noSession }),
      transformResponse: dataOf<ExternalView>,
      keepUnusedDataFor: 0,
    }),
    /** A shared image's bytes (content or thumbnail path) as an object URL. */
    externalBlob: build.query<{ url: string; type: string }, string>({
      queryFn: async (path, { signal, getState }) => {
        const read = await blobResult(() => apiBlob(path, { signal, auth: false }));
        if ('error' in read) return read;
        if (externalLinkApi.endpoints.externalBlob.select(path)(getState() as RootState).isUninitialized) {
          return { error: new ApiError(0, '') };
        }
        return { data: { url: urls.hold(path, read.data), type: read.data.type } };
      },
      keepUnusedDataFor: 30,
      async onCacheEntryAdded(path, { cacheEntryRemoved }) {
        await cacheEntryRemoved;
        urls.release(path);
      },
    }),
  }),
});

export const {
  useCloseLinkMutation,
  useLinkStatusMutation,
  useOpenLinkMutation,
  useLazyExternalViewQuery,
  useExternalBlobQuery,
} = externalLinkApi;

/** A shared file as an attachment (refused by the server for a view-only share). */
export function fetchDownload(imageId: string): Promise<Blob> {
  return apiBlob(ExternalSharePaths.download(imageId), { auth: false });
}

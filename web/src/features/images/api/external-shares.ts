import type {
  ExternalShare,
  ExternalShareCreateBody,
  ExternalShareIssued,
  ExternalShareList,
  ExternalShareListQuery,
} from '@medshare/contracts/external-shares';
import { ExternalSharePaths } from '@medshare/contracts/paths';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice, dataOf } from '../../../lib/api-slice';

/** Paths under /api, as `apiRequest` takes them. */
const under = (path: string) => path.replace(/^\/api/, '');

/** Create, revoke and re-issue make the sharer's list of links stale (`docs/architecture.md` › Server state in the web app). */
const LINKS_TAG = { type: 'ExternalShares', id: 'LIST' } as const;

export const externalSharesApi = apiSlice.enhanceEndpoints({ addTagTypes: ['ExternalShares'] }).injectEndpoints({
  endpoints: (build) => ({
    /**
     * The caller's links (or with 'all', an administrator's view: every user's), newest first, and the
     * longest a link may last (setting external_share_max_hours).
     */
    listExternalShares: build.query<ExternalShareList, ExternalShareListQuery['scope'] | void>({
      query: (scope) => ({
        url: under(ExternalSharePaths.shares),
        query: { scope: scope === 'all' ? scope : undefined },
      }),
      transformResponse: dataOf<ExternalShareList>,
      providesTags: [LINKS_TAG],
    }),
    /** Mails the link; the answer holds the 6-digit code, shown once. */
    createExternalShare: build.mutation<ApiResult<ExternalShareIssued>, ExternalShareCreateBody>({
      query: (body) => ({ url: under(ExternalSharePaths.shares), method: 'POST', body }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<ExternalShareIssued>,
      invalidatesTags: [LINKS_TAG],
    }),
    revokeExternalShare: build.mutation<ApiResult<ExternalShare>, string>({
      query: (id) => ({ url: under(ExternalSharePaths.share(id)), method: 'DELETE' }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<ExternalShare>,
      invalidatesTags: [LINKS_TAG],
    }),
    /** A new link and code for the same share; the old link stops. */
    reissueExternalShare: build.mutation<ApiResult<ExternalShareIssued>, string>({
      query: (id) => ({ url: under(ExternalSharePaths.reissue(id)), method: 'POST' }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<ExternalShareIssued>,
      invalidatesTags: [LINKS_TAG],
    }),
  }),
});

export const {
  useListExternalSharesQuery,
  useCreateExternalShareMutation,
  useRevokeExternalShareMutation,
  useReissueExternalShareMutation,
} = externalSharesApi;

import type { StudyDetail, StudyShare, StudyShareBody } from '@medshare/contracts';
import { StudyPaths } from '@medshare/contracts/paths';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice, dataOf } from '../../../lib/api-slice';
import { IMAGE_LIST_TAG } from './list-images';
import { STUDY_LIST_TAG } from './list-studies';

const sharesTag = (studyUid: string) => ({ type: 'Studies' as const, id: `shares:${studyUid}` });

export const studyApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** The study page: its series and the instances the caller may see. */
    study: build.query<StudyDetail, string>({
      query: (studyUid) => ({ url: StudyPaths.detail(studyUid) }),
      transformResponse: dataOf<StudyDetail>,
      providesTags: (_result, _error, studyUid) => [{ type: 'Studies', id: studyUid }, IMAGE_LIST_TAG],
    }),
    /** The study shares of a study, as its sender sees them (never codes). */
    studyShares: build.query<StudyShare[], string>({
      query: (studyUid) => ({ url: StudyPaths.shares(studyUid) }),
      transformResponse: dataOf<StudyShare[]>,
      providesTags: (_result, _error, studyUid) => [sharesTag(studyUid)],
    }),
    /** One sharing id and one code for the whole study; the server mails them to the recipient only. */
    shareStudy: build.mutation<ApiResult<StudyShare>, { studyUid: string; body: StudyShareBody }>({
      query: ({ studyUid, body }) => ({ url: StudyPaths.share(studyUid), method: 'POST', body }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<StudyShare>,
      invalidatesTags: (_result, _error, { studyUid }) => [
        sharesTag(studyUid),
        STUDY_LIST_TAG,
        IMAGE_LIST_TAG,
        'UserStats',
        'AdminSummary',
      ],
    }),
    /** Revoking closes every image of the study share at once. */
    revokeStudyShare: build.mutation<ApiResult<StudyShare>, { studyUid: string; id: string }>({
      query: ({ studyUid, id }) => ({ url: StudyPaths.revoke(studyUid, id), method: 'DELETE' }),
      transformResponse: (result: ApiResult<unknown>) => result as ApiResult<StudyShare>,
      invalidatesTags: (_result, _error, { studyUid }) => [
        sharesTag(studyUid),
        STUDY_LIST_TAG,
        IMAGE_LIST_TAG,
        'UserStats',
        'AdminSummary',
      ],
    }),
  }),
});

export const { useStudyQuery, useStudySharesQuery, useShareStudyMutation, useRevokeStudyShareMutation } = studyApi;

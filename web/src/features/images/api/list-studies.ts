import type { Pagination, StudySummary } from '@medshare/contracts';
import { StudyPaths } from '@medshare/contracts/paths';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { IMAGE_LIST_TAG } from './list-images';
import { createOpeningRead } from './opening-read';

export type StudyListArgs = { page: number; limit: number };

export const STUDIES_PAGE_SIZE = 10;

/** Page 1 as the page asks for it: a read started before the page mounted must use the same key. */
export const FIRST_STUDY_PAGE: StudyListArgs = { page: 1, limit: STUDIES_PAGE_SIZE };

/** Page 1's read started before the page first mounted, by the viewer it was for. */
export const studyListOpening = createOpeningRead<string | undefined>();

export type StudyPage = { studies: StudySummary[]; pagination: Pagination | null };

/** The tag every write that adds, removes or changes a study (or its access) invalidates. */
export const STUDY_LIST_TAG = { type: 'Studies', id: 'LIST' } as const;

export const studyListApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * The caller's study cards (`docs/architecture.md` › Studies and DICOMweb). A study's cards
     * change with its images: every write that makes the image list stale (upload, share, verify,
     * revoke, delete) makes this one stale too, so it provides the image list's tag as well.
     */
    listStudies: build.query<StudyPage, StudyListArgs>({
      query: ({ page, limit }) => ({ url: StudyPaths.list, query: { page, limit } }),
      transformResponse: (result: ApiResult<unknown>) => ({
        studies: result.data as StudySummary[],
        pagination: result.pagination ?? null,
      }),
      providesTags: [STUDY_LIST_TAG, IMAGE_LIST_TAG],
    }),
  }),
});

export const { useListStudiesQuery } = studyListApi;

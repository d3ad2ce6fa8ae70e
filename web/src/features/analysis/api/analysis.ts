import type { Analysis, AnalysisResult, PublicSettings } from '@medshare/contracts';
import { AnalysisPaths } from '@medshare/contracts/analysis-text';
import { apiSlice, dataOf } from '../../../lib/api-slice';

/** The earlier results of an image: a re-run makes them stale, the stored result it replaces itself. */
const historyTag = (imageId: string) => ({ type: 'Analysis' as const, id: `${imageId}/history` });

export const analysisApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /**
     * The stored analysis of an image, or a first run when there is none (GET /api/analysis/:imageId).
     * Cached: coming back to the screen shows the stored result without asking the provider again.
     */
    getAnalysis: build.query<AnalysisResult, string>({
      query: (imageId) => ({ url: AnalysisPaths.analysis(imageId) }),
      transformResponse: dataOf<AnalysisResult>,
      providesTags: (_result, _error, imageId) => [{ type: 'Analysis', id: imageId }],
    }),
    /** Earlier analyses of the image, newest first. */
    getAnalysisHistory: build.query<Analysis[], string>({
      query: (imageId) => ({ url: AnalysisPaths.history(imageId), query: { limit: 50 } }),
      transformResponse: dataOf<Analysis[]>,
      providesTags: (_result, _error, imageId) => [{ type: 'Analysis', id: imageId }, historyTag(imageId)],
    }),
    /** Re-run: always a fresh analysis; it becomes the image's stored result and joins the history. */
    runAnalysis: build.mutation<AnalysisResult, string>({
      query: (imageId) => ({ url: AnalysisPaths.run(imageId), method: 'POST' }),
      transformResponse: dataOf<AnalysisResult>,
      async onQueryStarted(imageId, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(analysisApi.util.upsertQueryData('getAnalysis', imageId, data));
        } catch {
          // The screen shows the failure; the stored result stays.
        }
      },
      invalidatesTags: (result, _error, imageId) => (result ? [historyTag(imageId)] : []),
    }),
  }),
});

export const { useGetAnalysisQuery, useGetAnalysisHistoryQuery, useRunAnalysisMutation } = analysisApi;

export type DisplaySettings = Pick<PublicSettings, 'displayLocale' | 'displayTimeZone'>;

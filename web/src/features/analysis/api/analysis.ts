import type { Analysis, AnalysisResult, PublicSettings } from '@medshare/contracts';
import { AnalysisPaths } from '@medshare/contracts/analysis-text';
import { ApiPaths } from '@medshare/contracts/paths';
import { api } from '../../../lib/api-client';

/** The stored analysis of an image, or a first run when there is none (GET /api/analysis/:imageId). */
export function getAnalysis(imageId: string, signal?: AbortSignal) {
  return api.get<AnalysisResult>(AnalysisPaths.analysis(imageId), { signal });
}

/** Re-run: always a fresh analysis. */
export function runAnalysis(imageId: string) {
  return api.post<AnalysisResult>(AnalysisPaths.run(imageId));
}

/** Earlier analyses of the image, newest first. */
export function getAnalysisHistory(imageId: string, signal?: AbortSignal) {
  return api.get<Analysis[]>(AnalysisPaths.history(imageId), { signal, query: { limit: 50 } });
}

/** DESIGN §12 display defaults, used until (or if) the server's public settings arrive. */
export const DEFAULT_DISPLAY = { displayLocale: 'en-PK', displayTimeZone: 'Asia/Karachi' } as const;

export type DisplaySettings = Pick<PublicSettings, 'displayLocale' | 'displayTimeZone'>;

/** Locale and time zone for 'Analysis generated at'; the defaults when the call fails. */
export async function getDisplaySettings(signal?: AbortSignal): Promise<DisplaySettings> {
  try {
    const { data } = await api.get<Partial<PublicSettings>>(`${ApiPaths.settings}/public`, { auth: false, signal });
    return {
      displayLocale: data?.displayLocale || DEFAULT_DISPLAY.displayLocale,
      displayTimeZone: data?.displayTimeZone || DEFAULT_DISPLAY.displayTimeZone,
    };
  } catch {
    return { ...DEFAULT_DISPLAY };
  }
}

import type { PublicSettings } from '@medshare/contracts';
import { ApiPaths } from '@medshare/contracts/paths';
import { apiSlice } from './api-slice.ts';
import type { AppDispatch } from './store.ts';

/** The defaults of `docs/architecture.md` › Settings, used until (or if) the server's public settings arrive. */
export const DEFAULT_PUBLIC_SETTINGS: PublicSettings = {
  displayLocale: 'en-PK',
  displayTimeZone: 'Asia/Karachi',
  maxUploadMb: 10,
  maxImportFiles: 2000,
  maxImportMb: 2048,
};

/**
 * Locale, time zone and upload limit: one cached read for every screen (no sign-in needed). The
 * settings screen's add, edit and delete invalidate the `PublicSettings` tag, so every mounted page
 * shows a new time zone or upload limit at once.
 */
export const publicSettingsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getPublicSettings: build.query<PublicSettings, void>({
      query: () => ({ url: `${ApiPaths.settings}/public`, auth: false }),
      transformResponse: (result) => ({ ...DEFAULT_PUBLIC_SETTINGS, ...(result.data as Partial<PublicSettings>) }),
      providesTags: ['PublicSettings'],
    }),
  }),
});

/** The server's public settings; the defaults until they arrive, or when they cannot be read (asked again on the next mount). */
export function usePublicSettings(): PublicSettings {
  const { data } = publicSettingsApi.useGetPublicSettingsQuery();
  return data ?? DEFAULT_PUBLIC_SETTINGS;
}

/**
 * Starts the read when a signed-in page starts (app/preload-route.ts), beside that page's own first
 * reads. Left to the page, it went out only once the page had rendered, with the defaults' time zone:
 * an instance set to another zone showed every date in Asia/Karachi first and redrew the page's cards
 * when the answer came. A cached answer serves the page's mount; nothing asks twice.
 */
export function prefetchPublicSettings(dispatch: AppDispatch): void {
  void dispatch(publicSettingsApi.util.prefetch('getPublicSettings', undefined, {}));
}

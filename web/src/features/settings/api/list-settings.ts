import { ApiPaths } from '@medshare/contracts/paths';
import type { AppSetting } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';

export const byName = (a: AppSetting, b: AppSetting) => a.name.localeCompare(b.name);

/** Every setting, by name. The writes update this list from their answers instead of reading it again. */
export const listSettingsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    listSettings: build.query<AppSetting[], void>({
      query: () => ({ url: `${ApiPaths.settings}/` }),
      transformResponse: (result) => [...dataOf<AppSetting[]>(result)].sort(byName),
      providesTags: ['Settings'],
    }),
  }),
});

export const { useListSettingsQuery } = listSettingsApi;

/** The cached list after a write the server accepted (its answer is the row). */
export function changeCachedList(change: (list: AppSetting[]) => AppSetting[]) {
  return listSettingsApi.util.updateQueryData('listSettings', undefined, change);
}

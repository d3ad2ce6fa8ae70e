import { ApiPaths } from '@medshare/contracts/paths';
import type { AppSetting, CreateSettingBody } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { byName, changeCachedList } from './list-settings';

/** The payload shape of `docs/product.md` › Calls: `{ setting: { name, value, description } }`. */
const addSettingApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    addSetting: build.mutation<ApiResult<AppSetting>, CreateSettingBody['setting']>({
      query: (setting) => ({ url: `${ApiPaths.settings}/add`, method: 'POST', body: { setting } }),
      transformResponse: (result) => result as ApiResult<AppSetting>,
      // A public setting (time zone, upload limit) may have changed: every page's copy is read again.
      invalidatesTags: ['PublicSettings'],
      onQueryStarted: async (_setting, { dispatch, queryFulfilled }) => {
        const { data } = await queryFulfilled.catch(() => ({ data: null }));
        if (data) dispatch(changeCachedList((list) => [...list, data.data].sort(byName)));
      },
    }),
  }),
});

export const { useAddSettingMutation } = addSettingApi;

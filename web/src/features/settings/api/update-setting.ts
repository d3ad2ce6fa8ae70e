import { ApiPaths } from '@medshare/contracts/paths';
import type { AppSetting, UpdateSettingBody } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { byName, changeCachedList } from './list-settings';

type SettingFields = Pick<UpdateSettingBody, 'name' | 'value' | 'description'>;

const updateSettingApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    updateSetting: build.mutation<ApiResult<AppSetting>, { id: string; body: SettingFields }>({
      query: ({ id, body }) => ({ url: `${ApiPaths.settings}/edit/${encodeURIComponent(id)}`, method: 'PUT', body }),
      transformResponse: (result) => result as ApiResult<AppSetting>,
      // A public setting (time zone, upload limit) may have changed: every page's copy is read again.
      invalidatesTags: ['PublicSettings'],
      onQueryStarted: async ({ id }, { dispatch, queryFulfilled }) => {
        const { data } = await queryFulfilled.catch(() => ({ data: null }));
        if (data) dispatch(changeCachedList((list) => list.map((s) => (s.id === id ? data.data : s)).sort(byName)));
      },
    }),
  }),
});

export const { useUpdateSettingMutation } = updateSettingApi;

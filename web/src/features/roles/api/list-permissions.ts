import { ApiPaths } from '@medshare/contracts/paths';
import type { Permission } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';

const permissionsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Permissions with the roles holding each (roles:read). */
    listPermissions: build.query<Permission[], void>({
      query: () => ({ url: ApiPaths.permissions }),
      transformResponse: dataOf<Permission[]>,
      providesTags: ['Permissions'],
    }),
  }),
});

export const { useListPermissionsQuery } = permissionsApi;

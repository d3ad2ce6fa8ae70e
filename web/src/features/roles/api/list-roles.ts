import { ApiPaths } from '@medshare/contracts/paths';
import type { Role } from '@medshare/contracts';
import { apiSlice, dataOf } from '../../../lib/api-slice';

const rolesApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Roles with the permissions each holds (roles:read). */
    listRoles: build.query<Role[], void>({
      query: () => ({ url: ApiPaths.roles }),
      transformResponse: dataOf<Role[]>,
      providesTags: ['Roles'],
    }),
  }),
});

export const { useListRolesQuery } = rolesApi;

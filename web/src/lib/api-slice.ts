import { type BaseQueryFn, createApi } from '@reduxjs/toolkit/query/react';
import type { ApiError, ApiResult, RequestOptions, apiRequest } from './api-client.ts';

/** One call as an endpoint describes it: the path under /api and the options of `apiRequest`. */
export type ApiArgs = { url: string } & Omit<RequestOptions, 'signal'>;

/**
 * The client the base query calls, handed in by the store as the thunk's extra argument
 * (`store.ts`): the client imports the store for the session, so importing it here would make a
 * cycle that breaks when a feature's endpoints are the first module to load.
 */
export type ApiClient = {
  request: typeof apiRequest;
  ApiError: typeof ApiError;
};

/**
 * Every endpoint goes through `apiRequest`, so the bearer header, the 401 rule that ends a session,
 * the envelope unwrapping and the thrown `ApiError` are the same as for a direct call. The result
 * is the whole `ApiResult` (data, message, pagination): endpoints pick what their screen shows.
 */
export const apiBaseQuery: BaseQueryFn<ApiArgs, ApiResult<unknown>, ApiError> = async (args, { signal, extra }) => {
  const client = extra as ApiClient;
  const { url, ...options } = args;
  try {
    return { data: await client.request<unknown>(url, { ...options, signal }) };
  } catch (error) {
    if (error instanceof client.ApiError) return { error };
    // An aborted call (its last subscriber left): RTK Query drops the result, nobody sees it.
    if (error instanceof DOMException && error.name === 'AbortError') return { error: new client.ApiError(0, '') };
    throw error;
  }
};

/**
 * The web app's server state: one cache, one place that knows what a write makes stale. Features
 * add their endpoints with `apiSlice.injectEndpoints` in `features/<x>/api/*.ts`
 * (`docs/architecture.md` › Server state in the web app).
 */
export const apiSlice = createApi({
  reducerPath: 'api',
  baseQuery: apiBaseQuery,
  tagTypes: [
    'PublicSettings',
    'Settings',
    'Users',
    'UserStats',
    'AdminSummary',
    'User',
    'Roles',
    'Permissions',
    'AuditLogs',
    'AuditActions',
    'Images',
    'Shares',
    'Studies',
    'Conversations',
    'Messages',
    'Analysis',
  ],
  endpoints: () => ({}),
});

/** `transformResponse` for an endpoint whose screen needs only the data: `transformResponse: dataOf<User>`. */
export function dataOf<T>(result: ApiResult<unknown>): T {
  return result.data as T;
}

/** `transformResponse` for a list page: its rows and the pagination the server computed. */
export function pageOf<T>(result: ApiResult<unknown>): { items: T[]; pagination: ApiResult<unknown>['pagination'] } {
  return { items: result.data as T[], pagination: result.pagination };
}

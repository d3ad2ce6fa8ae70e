import type { ErrorResponse, ExternalShareList, FieldError, Pagination, PublicSettings } from '@medshare/contracts';
import { ApiPaths } from '@medshare/contracts/paths';
import { type DefaultBodyType, type HttpResponseResolver, HttpResponse, type PathParams, http } from 'msw';
import { API_BASE } from '../lib/api-client';

/** The success envelope (contracts' `envelope`, `pagedEnvelope` and `MessageOnlyResponseSchema`). */
export type Success<T> = { success: true; message?: string; data: T; pagination?: Pagination };

/** What a route answers: its data in the success envelope, or the error envelope. */
type Answer<T> = Success<T> | ErrorResponse;

/** `data` in the success envelope, as the server sends it. */
export function ok<T>(data: T, message?: string, status = 200) {
  return HttpResponse.json<Success<T>>(
    message === undefined ? { success: true, data } : { success: true, message, data },
    { status },
  );
}

/** One page of a list: `items` with the pagination the server computes for it. */
export function paged<T>(items: T[], page: Partial<Pagination> = {}) {
  const pageSize = page.pageSize ?? Math.max(items.length, 1);
  const totalItems = page.totalItems ?? items.length;
  const currentPage = page.currentPage ?? 1;
  const totalPages = page.totalPages ?? Math.max(1, Math.ceil(totalItems / pageSize));
  return HttpResponse.json<Success<T[]>>({
    success: true,
    data: items,
    pagination: {
      currentPage,
      pageSize,
      totalPages,
      totalItems,
      hasPrevPage: currentPage > 1,
      hasNextPage: currentPage < totalPages,
      ...page,
    },
  });
}

/** The error envelope with `status`, as the server's error handler sends it. */
export function failure(status: number, message: string, extra: { code?: string; errors?: FieldError[] } = {}) {
  return HttpResponse.json<ErrorResponse>({ success: false, message, ...extra }, { status });
}

type Resolver<T, Body extends DefaultBodyType> = HttpResponseResolver<PathParams, Body, Answer<T>>;

/**
 * Handlers for routes under /api, typed by the data they answer (a contracts type) and, for
 * writes, the body they read: `api.get<User>('/users/profile', () => ok(makeUser()))`.
 */
export const api = {
  get: <T>(path: string, resolver: Resolver<T, never>) => http.get(`${API_BASE}${path}`, resolver),
  post: <T, Body extends DefaultBodyType = DefaultBodyType>(path: string, resolver: Resolver<T, Body>) =>
    http.post(`${API_BASE}${path}`, resolver),
  put: <T, Body extends DefaultBodyType = DefaultBodyType>(path: string, resolver: Resolver<T, Body>) =>
    http.put(`${API_BASE}${path}`, resolver),
  patch: <T, Body extends DefaultBodyType = DefaultBodyType>(path: string, resolver: Resolver<T, Body>) =>
    http.patch(`${API_BASE}${path}`, resolver),
  delete: <T, Body extends DefaultBodyType = DefaultBodyType>(path: string, resolver: Resolver<T, Body>) =>
    http.delete(`${API_BASE}${path}`, resolver),
};

/**
 * A `text/event-stream` answer the test writes to as the server would (the message stream): the
 * response stays open until the client aborts it, so the client reads each `write` as it comes.
 */
export function eventStream() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    response: () => new HttpResponse(body, { headers: { 'Content-Type': 'text/event-stream' } }),
    write: (text: string) => controller.enqueue(encoder.encode(text)),
  };
}

/** Public settings that make dates easy to read in assertions (UTC, en-GB: '1 Mar 2026, 10:00'). */
export const TEST_PUBLIC_SETTINGS: PublicSettings = {
  displayLocale: 'en-GB',
  displayTimeZone: 'UTC',
  maxUploadMb: 10,
  maxImportFiles: 2000,
  maxImportMb: 2048,
};

/** GET /api/appsetting/public, the read every screen with dates or an upload limit makes. */
export function publicSettings(settings: PublicSettings = TEST_PUBLIC_SETTINGS) {
  return api.get<PublicSettings>(`${ApiPaths.settings}/public`, () => ok(settings));
}

/** GET /api/external-shares, the sharer's links that View images lists (none by default). */
export function externalShares(list: ExternalShareList = { items: [], maxHours: 72 }) {
  return api.get<ExternalShareList>('/external-shares', () => ok(list));
}

/** A request that never reaches the server (fetch rejects, as when the backend is down). */
export function unreachable() {
  return HttpResponse.error();
}

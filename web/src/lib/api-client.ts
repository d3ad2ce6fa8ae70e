import type { FieldError, Pagination } from '@medshare/contracts';
import { isFieldErrorCode } from './field-error-codes.ts';
import { currentPath, hardNavigate } from './navigation.ts';
import { type SessionEndReason, markSessionEnded } from './session-ended.ts';

export const API_BASE = '/api';

/**
 * The session this client sends and ends: the app's store, which binds itself here when it is built
 * (store.ts). The store's thunks call this client, so the client does not import the store.
 */
export interface SessionBinding {
  token(): string | null;
  /** Clears the session and writes the cleared state to storage. */
  end(): Promise<void>;
}
let session: SessionBinding = { token: () => null, end: async () => undefined };

export function bindSession(binding: SessionBinding): void {
  session = binding;
}

/** What any failed call throws. `message` is the server's text, or '' when it gave none. */
export class ApiError extends Error {
  readonly status: number;
  readonly errors: FieldError[];
  readonly code: string | undefined;

  constructor(status: number, message: string, errors: FieldError[] = [], code?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.errors = errors;
    this.code = code;
  }
}

export type ApiResult<T> = {
  data: T;
  message: string | undefined;
  pagination: Pagination | undefined;
};

export type RequestOptions = {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  /**
   * Sign-in endpoints are called without a session: a stale token must not ride along, and their
   * 401s ("Invalid email or password") are answers for the form, not an ended session.
   */
  auth?: boolean;
  /** Lets a caller (logout) finish its own flow instead of the global 401 redirect. */
  handleSessionExpiry?: boolean;
  signal?: AbortSignal;
  /** Sent through even if the page is closed right after (the share link page's Close). */
  keepalive?: boolean;
};

/** 401 phrases the server uses for a session that is gone (`docs/architecture.md` › API conventions). */
const SESSION_ENDED = /expired|unauthenticated|authentication failed|invalid/i;

type Envelope = {
  success?: boolean;
  message?: unknown;
  data?: unknown;
  pagination?: Pagination;
  errors?: unknown;
  code?: unknown;
};

function buildUrl(path: string, query: RequestOptions['query']): string {
  const url = `${API_BASE}${path}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${url}?${qs}` : url;
}

export function toFieldErrors(raw: unknown): FieldError[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item: unknown) => {
    if (item && typeof item === 'object' && 'message' in item) {
      const { field, message, code } = item as { field?: unknown; message?: unknown; code?: unknown };
      const known = isFieldErrorCode(code) ? { code } : {};
      return [{ field: typeof field === 'string' ? field : '', message: String(message), ...known }];
    }
    return [];
  });
}

/**
 * The session is gone (the server said so, the idle limit passed, another tab logged out): forget it,
 * leave the login page a word on why, and go there as a full page load.
 */
export async function endSession(reason: SessionEndReason = 'ended'): Promise<void> {
  // Read first: once the session is cleared, a signed-in page's guard moves the router to /login by
  // itself, and the full page load that drops what the tab holds would be skipped.
  const away = currentPath() !== '/login';
  // The cleared state is written before leaving, or the reload would rehydrate the old token.
  await session.end();
  markSessionEnded(reason);
  if (away) hardNavigate('/login');
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<ApiResult<T>> {
  const { method = 'GET', body, query, auth = true, handleSessionExpiry = true, signal, keepalive } = options;
  const headers = new Headers({ Accept: 'application/json' });
  const token = auth ? session.token() : null;
  if (token) headers.set('Authorization', `Bearer ${token}`);

  let payload: BodyInit | undefined;
  if (body instanceof FormData) {
    payload = body;
  } else if (body !== undefined) {
    headers.set('Content-Type', 'application/json');
    payload = JSON.stringify(body);
  }

  let response: Response;
  try {
    response = await fetch(buildUrl(path, query), {
      method,
      headers,
      body: payload,
      signal,
      ...(keepalive ? { keepalive } : {}),
      credentials: 'same-origin',
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError(0, '');
  }

  let envelope: Envelope = {};
  const text = await response.text();
  if (text) {
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      // A proxy's HTML error page: keep the status, let the screen use its own wording.
      envelope = {};
    }
  }
  const message = typeof envelope.message === 'string' ? envelope.message : '';

  if (!response.ok || envelope.success === false) {
    if (response.status === 401 && token && handleSessionExpiry && SESSION_ENDED.test(message)) {
      await endSession();
    }
    throw new ApiError(
      response.status,
      message,
      toFieldErrors(envelope.errors),
      typeof envelope.code === 'string' ? envelope.code : undefined,
    );
  }

  return {
    data: envelope.data as T,
    message: message || undefined,
    pagination: envelope.pagination,
  };
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'POST', body }),
  put: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'PUT', body }),
  delete: <T>(path: string, options?: Omit<RequestOptions, 'method'>) =>
    apiRequest<T>(path, { ...options, method: 'DELETE' }),
};

/**
 * The 401 rule of apiRequest for calls that cannot go through it (an upload needs
 * XMLHttpRequest for progress events): ends the session when the server says it is gone.
 */
export async function endSessionIfExpired(status: number, message: string, hadToken: boolean): Promise<void> {
  if (status === 401 && hadToken && SESSION_ENDED.test(message)) await endSession();
}

/** The bearer header of the stored session, for calls made outside apiRequest. */
export function currentToken(): string | null {
  return session.token();
}

/**
 * Bytes (image content, thumbnails) fetched with the bearer header, so no token or secret ever
 * travels in a URL. `path` is the absolute path the API handed out (e.g. /api/images/:id/content).
 */
export async function apiBlob(
  path: string,
  options: { query?: RequestOptions['query']; signal?: AbortSignal; auth?: boolean } = {},
): Promise<Blob> {
  // `auth: false` for the share-link page: its cookie is the credential, a signed-in session has no part in it.
  const token = options.auth === false ? null : currentToken();
  const headers = new Headers();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) params.set(key, String(value));
  }
  const qs = params.toString();
  let response: Response;
  try {
    response = await fetch(qs ? `${path}?${qs}` : path, {
      headers,
      signal: options.signal,
      credentials: 'same-origin',
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError(0, '');
  }
  if (!response.ok) {
    let message = '';
    try {
      const body = (await response.json()) as Envelope;
      if (typeof body.message === 'string') message = body.message;
    } catch {
      // Not JSON: keep the status only.
    }
    await endSessionIfExpired(response.status, message, Boolean(token));
    throw new ApiError(response.status, message);
  }
  return response.blob();
}

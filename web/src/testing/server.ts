import { setupServer } from 'msw/node';
import { onTestFinished } from 'vitest';

/**
 * The API the web tests talk to. It answers nothing by default: each test adds the answers its
 * screen needs with `server.use(api.get(...))`, and any other request fails the test loudly.
 */
export const server = setupServer();

/** Every request the API received during the current test, in order (a copy each, body unread). */
export function recordRequests(): Request[] {
  const seen: Request[] = [];
  const listener = ({ request }: { request: Request }) => {
    seen.push(request.clone());
  };
  server.events.on('request:start', listener);
  onTestFinished(() => {
    server.events.removeListener('request:start', listener);
  });
  return seen;
}

/** The recorded requests to `METHOD path` (path under /api, without the query string). */
export function requestsTo(seen: Request[], method: string, path: string): Request[] {
  return seen.filter((request) => request.method === method && new URL(request.url).pathname === `/api${path}`);
}

/** The JSON bodies of the recorded requests to `METHOD path`, in order. */
export function bodiesOf(seen: Request[], method: string, path: string): Promise<unknown[]> {
  return Promise.all(requestsTo(seen, method, path).map((request) => request.clone().json() as Promise<unknown>));
}

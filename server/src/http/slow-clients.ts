import { IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { addressBlock } from './client-address.ts';

/**
 * The routes whose body may honestly take minutes (a max_upload_mb file, a STOW-RS study, on a slow link): they get
 * HTTP_UPLOAD_TIMEOUT_MS for the whole request; every other body is at most 1 MB of JSON.
 */
export const LONG_BODY_ROUTES: ReadonlySet<string> = new Set([
  '/api/upload/image',
  // STOW-RS: a study of many instances in one body (at most max_import_mb).
  '/api/dicomweb/studies',
  '/api/dicomweb/studies/:study',
]);

/**
 * Node's own limits, given to Fastify's constructor: headers must arrive within headersTimeoutMs
 * (checked every connectionsCheckingInterval, Node's default of 30 s would stretch 15 s to 45 s),
 * no request may take longer than the upload deadline, idle keep-alive sockets close after
 * keepAliveTimeoutMs (above nginx's 60 s upstream keepalive, so nginx never reuses a socket the
 * app is closing).
 */
export function serverTimeouts(http: Config['http']) {
  return {
    requestTimeout: http.uploadTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    http: {
      headersTimeout: http.headersTimeoutMs,
      requestTimeout: http.uploadTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(http.headersTimeoutMs / 4))),
      // Node's default is 2 000; no client of this API sends more than a few dozen.
      maxHeadersCount: 100,
    },
  };
}

/**
 * At most `max` open sockets per remote address block (an IPv6 address's /64: addressBlock): the
 * (max+1)-th is closed at once, before a byte is read. Without it one address could hold every file
 * descriptor with idle or trickling sockets, and one client given a /64 would have 2^64 addresses.
 * The address is the socket's own, never X-Forwarded-For (which the client writes).
 */
export function capConnectionsPerAddress(server: Pick<Server, 'on'>, max: number) {
  if (max <= 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = addressBlock(socket.remoteAddress ?? null);
    if (!address) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/**
 * While a request body is being received: no byte for bodyIdleTimeoutMs, or the whole request
 * taking longer than its deadline (requestTimeoutMs, or uploadTimeoutMs on LONG_BODY_ROUTES),
 * closes the socket. Node has no body-idle limit of its own, and its requestTimeout is one value
 * for every route. Once the body is in, both limits end: answers may take long (analysis, SSE).
 */
export function limitSlowBodies(app: FastifyInstance, http: Config['http']) {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
    // Injected requests (tests) have no socket to cut.
    if (!hasBody || raw.complete || !(raw instanceof IncomingMessage)) return done();
    const socket = raw.socket;
    const deadlineMs = LONG_BODY_ROUTES.has(request.routeOptions.url ?? '')
      ? http.uploadTimeoutMs
      : http.requestTimeoutMs;
    const remainingMs = deadlineMs - reply.elapsedTime;
    const cut = () => socket.destroy();
    const deadline = setTimeout(cut, Math.max(0, remainingMs));
    // A 'timeout' listener on the request means Node's own handler leaves the socket to us.
    raw.setTimeout(http.bodyIdleTimeoutMs, cut);
    let receiving = true;
    const finished = () => {
      if (!receiving) return;
      receiving = false;
      clearTimeout(deadline);
      raw.removeListener('timeout', cut);
      // Unless Node has already moved on to its keep-alive timeout (a body read only after the answer).
      if (!socket.destroyed && socket.timeout === http.bodyIdleTimeoutMs) socket.setTimeout(0);
    };
    raw.once('end', finished);
    raw.once('close', finished);
    done();
  });
}

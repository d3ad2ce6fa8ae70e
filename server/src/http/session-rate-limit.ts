import { createHash } from 'node:crypto';

/**
 * Route config for @fastify/rate-limit keyed per session (hashed bearer token), not per address:
 * a ward behind one NAT address is many people. Anonymous requests fall back to the address.
 */
export function perSessionRateLimit(prefix: string, maxPerMinute: number) {
  return {
    rateLimit: {
      max: maxPerMinute,
      timeWindow: '1 minute',
      keyGenerator: (request: { headers: { authorization?: string }; ip: string }) =>
        request.headers.authorization
          ? `${prefix}:${createHash('sha256').update(request.headers.authorization).digest('base64url').slice(0, 22)}`
          : `${prefix}-ip:${request.ip}`,
    },
  };
}

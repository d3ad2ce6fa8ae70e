import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

type Result = { current: number; ttl: number };
type Callback = (error: Error | null, result?: Result) => void;

// One round trip: count, start the window on the first hit, report what is left of it.
const INCR = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local t = redis.call('PTTL', KEYS[1])
if t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); t = tonumber(ARGV[1]) end
return {c, t}`;

const LOCAL_MAX_KEYS = 10_000;

/**
 * Rate-limit counters in Redis, so that a limit holds across every instance of a deployment. While
 * Redis cannot answer, each instance counts on its own (fixed windows in memory): limits get
 * looser by the number of instances during an outage, never lifted, and requests never wait on it.
 */
export function sharedRateLimitStore(redis: Redis, prefix: string): FastifyRateLimitStoreCtor {
  const local = new Map<string, { current: number; resetAt: number }>();

  const countLocally = (key: string, timeWindow: number): Result => {
    const now = Date.now();
    let entry = local.get(key);
    if (!entry || entry.resetAt <= now) {
      if (local.size >= LOCAL_MAX_KEYS) {
        for (const [k, e] of local) if (e.resetAt <= now) local.delete(k);
        // Still full: forget the oldest windows rather than grow without bound.
        for (const k of local.keys()) {
          if (local.size < LOCAL_MAX_KEYS) break;
          local.delete(k);
        }
      }
      entry = { current: 0, resetAt: now + timeWindow };
      local.set(key, entry);
    }
    entry.current += 1;
    return { current: entry.current, ttl: entry.resetAt - now };
  };

  const store = (namespace: string): FastifyRateLimitStore => ({
    incr(key: string, callback: Callback, timeWindow: number) {
      const full = namespace + key;
      (redis.eval(INCR, 1, full, String(timeWindow)) as Promise<[number, number]>).then(
        ([current, ttl]) => callback(null, { current, ttl }),
        () => callback(null, countLocally(full, timeWindow)),
      );
    },
    child(routeOptions) {
      const route = (routeOptions as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo ?? {};
      return store(`${namespace}${String(route.method ?? '')}${String(route.url ?? '')}-`);
    },
  });

  return class {
    constructor(_options: FastifyRateLimitOptions) {
      return store(prefix);
    }
  } as unknown as FastifyRateLimitStoreCtor;
}

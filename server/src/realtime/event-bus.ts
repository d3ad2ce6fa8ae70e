import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { errorCode } from '../errors.ts';

/**
 * Live events addressed to users. They carry ids and times only, never message text: a stream that
 * hears of a message reads it from the database itself, so nothing sensitive passes through Redis
 * and a missed or reordered event can never make a stream skip or repeat a message.
 */
export type RealtimeEvent =
  | { type: 'message'; userIds: string[]; messageId: number }
  | { type: 'read'; userIds: string[]; read: { readerId: string; senderId: string; upToId: number; readAt: string } }
  // Sessions of these users were revoked: their open streams check theirs now instead of at the next timer tick.
  | { type: 'sessions'; userIds: string[] }
  // Access to images ended (a share revoked, an image deleted): content reads this process
  // holds for these viewers, or of these images, are dropped (images/content-access.ts).
  | { type: 'access'; userIds: string[]; imageIds: string[] };

export interface EventBus {
  /** Never throws and never waits on Redis: local listeners always hear the event at once. */
  publish(event: RealtimeEvent): void;
  onEvent(listener: (event: RealtimeEvent) => void): () => void;
  /** Called when events from other instances may have been missed (Redis came back). */
  onResync(listener: () => void): () => void;
  /** True while events cannot travel between instances (Redis unreachable). */
  readonly degraded: boolean;
  readonly kind: 'memory' | 'redis';
  close(): Promise<void>;
}

function listeners<T extends unknown[]>() {
  const set = new Set<(...args: T) => void>();
  return {
    add(fn: (...args: T) => void) {
      set.add(fn);
      return () => void set.delete(fn);
    },
    emit(...args: T) {
      for (const fn of set) fn(...args);
    },
  };
}

function isEvent(value: unknown): value is RealtimeEvent {
  const e = value as RealtimeEvent | null;
  if (!e || typeof e !== 'object' || !Array.isArray(e.userIds) || !e.userIds.every((u) => typeof u === 'string'))
    return false;
  if (e.type === 'message') return Number.isSafeInteger(e.messageId);
  if (e.type === 'read') return !!e.read && typeof e.read.readerId === 'string' && Number.isSafeInteger(e.read.upToId);
  if (e.type === 'access') return Array.isArray(e.imageIds) && e.imageIds.every((i) => typeof i === 'string');
  return e.type === 'sessions';
}

/** One process: listeners are called synchronously. */
export function createMemoryBus(): EventBus {
  const events = listeners<[RealtimeEvent]>();
  const resyncs = listeners<[]>();
  return {
    kind: 'memory',
    degraded: false,
    publish: (event) => events.emit(event),
    onEvent: events.add,
    onResync: resyncs.add,
    close: async () => {},
  };
}

/**
 * Several instances: every event is delivered locally at once and published on one Redis channel;
 * each instance ignores its own echoes. When Redis is unreachable, requests go on (sends are in the
 * database already), local delivery goes on, a warning is logged once per outage, and when Redis
 * returns every open stream is asked to catch up from the database.
 */
export function createRedisBus({ url, channel, log }: { url: string; channel: string; log: Logger }): EventBus {
  const origin = randomUUID();
  const events = listeners<[RealtimeEvent]>();
  const resyncs = listeners<[]>();
  const retryStrategy = (times: number) => Math.min(100 * 2 ** Math.min(times, 6), 5_000);
  const common = { retryStrategy, lazyConnect: true, connectTimeout: 5_000 } as const;
  // No offline queue: a publish while Redis is away fails at once instead of piling up.
  const pub = new Redis(url, { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  const sub = new Redis(url, { ...common, autoResubscribe: false, maxRetriesPerRequest: 0 });
  let subscribed = false;
  let everSubscribed = false;
  let outageLogged = false;
  let closing = false;

  const warnOutage = (err?: Error) => {
    if (outageLogged || closing) return;
    outageLogged = true;
    log.warn(
      { err: err ? { message: err.message, code: errorCode(err) } : undefined },
      'redis unavailable: live delivery between instances paused, local delivery continues',
    );
  };
  pub.on('error', (err: Error) => warnOutage(err));
  sub.on('error', (err: Error) => warnOutage(err));
  sub.on('close', () => {
    if (subscribed) warnOutage();
    subscribed = false;
  });
  sub.on('ready', () => {
    sub
      .subscribe(channel)
      .then(() => {
        subscribed = true;
        if (everSubscribed || outageLogged) {
          log.warn('redis available again: live delivery between instances resumed');
          resyncs.emit();
        }
        everSubscribed = true;
        outageLogged = false;
      })
      .catch((err: Error) => warnOutage(err));
  });
  sub.on('message', (ch: string, raw: string) => {
    if (ch !== channel) return;
    let parsed: { origin?: unknown; event?: unknown };
    try {
      parsed = JSON.parse(raw) as typeof parsed;
    } catch {
      return;
    }
    if (parsed.origin === origin || !isEvent(parsed.event)) return;
    events.emit(parsed.event);
  });
  // Connection failures are reported through 'error' and retried; start-up never waits on Redis.
  pub.connect().catch(() => undefined);
  sub.connect().catch(() => undefined);

  return {
    kind: 'redis',
    get degraded() {
      return !subscribed || pub.status !== 'ready';
    },
    publish(event) {
      events.emit(event);
      if (pub.status !== 'ready') {
        warnOutage();
        return;
      }
      pub.publish(channel, JSON.stringify({ origin, event })).catch((err: Error) => warnOutage(err));
    },
    onEvent: events.add,
    onResync: resyncs.add,
    async close() {
      closing = true;
      pub.disconnect();
      sub.disconnect();
    },
  };
}

export function createEventBus({
  redisUrl,
  channel,
  log,
}: {
  redisUrl: string | null;
  channel: string;
  log: Logger;
}): EventBus {
  return redisUrl ? createRedisBus({ url: redisUrl, channel, log }) : createMemoryBus();
}

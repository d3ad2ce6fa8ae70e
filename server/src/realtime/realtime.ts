import type { Logger } from 'pino';
import type { Db } from '../db/db.ts';
import { type EventBus, createEventBus } from './event-bus.ts';
import { type SseHub, createSseHub } from './sse-hub.ts';

export interface Realtime {
  bus: EventBus;
  hub: SseHub;
  channel: string;
  close(): Promise<void>;
}

/**
 * Live delivery: an in-process bus, or Redis pub/sub when `REDIS_URL` is set, on the channel named
 * in this database (so instances sharing a database share a channel, and nothing else does).
 */
export async function createRealtime({
  db,
  redisUrl,
  log,
  hub: hubOptions = {},
}: {
  db: Db;
  redisUrl: string | null;
  log: Logger;
  hub?: { heartbeatMs?: number; sessionCheckMs?: number; degradedPollMs?: number; maxStreamsPerUser?: number };
}): Promise<Realtime> {
  const row = await db.selectFrom('realtime_channel').select('name').where('id', '=', 1).executeTakeFirstOrThrow();
  const channel = `${row.name}:events`;
  const bus = createEventBus({ redisUrl, channel, log });
  const hub = createSseHub({ bus, log, ...hubOptions });
  return {
    bus,
    hub,
    channel,
    async close() {
      hub.closeAll();
      await bus.close();
    },
  };
}

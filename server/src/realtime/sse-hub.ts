import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { errorCode, loggedMessage } from '../errors.ts';
import type { EventBus, RealtimeEvent } from './event-bus.ts';

/** What a stream needs from the messages module, for the one user it serves. */
export interface StreamSource<M extends { id: number }> {
  userId: string;
  /** Messages after an id, oldest first. */
  after(afterId: number, limit: number): Promise<M[]>;
  /** Why the stream must end now, or null. */
  endReason(): Promise<string | null>;
}

export interface SseHubOptions {
  bus: EventBus;
  log: Logger;
  heartbeatMs?: number;
  sessionCheckMs?: number;
  /** While Redis is away, streams look in the database this often for messages from other instances. */
  degradedPollMs?: number;
  maxStreamsPerUser?: number;
}

const REPLAY_BATCH = 200;
/** A client this far behind is cut off; it reconnects with Last-Event-ID and loses nothing. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

interface Stream {
  userId: string;
  catchUp(): void;
  checkSession(): Promise<void>;
  send(chunk: string): void;
  end(reason: string): void;
}

/**
 * Server-Sent Events for live messages. Every stream remembers the id of the last message it sent;
 * any hint that something new exists (a bus event, Redis coming back, a poll) makes it read
 * "my messages after that id" from the database. For one user, ids are committed in order, so this
 * neither skips nor repeats a message, whatever order hints arrive in.
 */
export function createSseHub(options: SseHubOptions) {
  const { bus, log } = options;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const sessionCheckMs = options.sessionCheckMs ?? 60_000;
  const degradedPollMs = options.degradedPollMs ?? 5_000;
  const maxStreamsPerUser = options.maxStreamsPerUser ?? 10;
  const byUser = new Map<string, Set<Stream>>();
  const all = new Set<Stream>();
  /** Slots taken by streams still being set up (the route awaits the database before `open`). */
  const reserved = new Map<string, number>();
  const unreserve = (userId: string) => {
    const n = (reserved.get(userId) ?? 1) - 1;
    if (n > 0) reserved.set(userId, n);
    else reserved.delete(userId);
  };

  const eachOf = (userIds: string[], fn: (s: Stream) => void) => {
    for (const id of new Set(userIds)) for (const s of byUser.get(id) ?? []) fn(s);
  };

  bus.onEvent((event: RealtimeEvent) => {
    if (event.type === 'message') eachOf(event.userIds, (s) => s.catchUp());
    else if (event.type === 'sessions') eachOf(event.userIds, (s) => void s.checkSession());
    else if (event.type === 'read')
      eachOf(event.userIds, (s) => s.send(`event: read\ndata: ${JSON.stringify(event.read)}\n\n`));
  });
  bus.onResync(() => all.forEach((s) => s.catchUp()));
  const poll = setInterval(() => {
    if (bus.degraded) all.forEach((s) => s.catchUp());
  }, degradedPollMs);
  poll.unref();

  return {
    /**
     * Takes one of the user's stream slots before the stream is set up, or answers null when all are
     * taken (open streams and others being set up alike: checking first and counting only at `open`
     * let a burst of connections past the cap). The slot goes to `open`, or back with `release`.
     */
    reserve(userId: string): StreamSlot | null {
      if ((byUser.get(userId)?.size ?? 0) + (reserved.get(userId) ?? 0) >= maxStreamsPerUser) return null;
      reserved.set(userId, (reserved.get(userId) ?? 0) + 1);
      let held = true;
      return {
        userId,
        release: () => {
          if (held) unreserve(userId);
          held = false;
        },
      };
    },

    get size() {
      return all.size;
    },

    /**
     * Serves one stream on a hijacked response until the client leaves, the session ends or the
     * server closes. `startId`: the last message id the client has (it gets everything after it).
     * The slot `reserve` gave is taken over (or given back, when the client has left already).
     */
    open<M extends { id: number }>(
      res: ServerResponse,
      headers: Record<string, string | string[] | number | undefined>,
      source: StreamSource<M>,
      startId: number,
      slot: StreamSlot,
    ): void {
      slot.release();
      // A client that left while the stream was set up has had its 'close' already: registering the
      // stream now would keep it, its timers and its slot until the session ends.
      if (res.destroyed || !res.socket || res.socket.destroyed) {
        res.destroy();
        return;
      }
      let lastSentId = startId;
      let running = false;
      let again = false;
      let closed = false;

      const write = (chunk: string) => {
        if (closed) return;
        res.write(chunk);
        if (res.writableLength > MAX_BUFFERED_BYTES) end('slow_consumer', false);
      };

      async function drain() {
        while (!closed) {
          again = false;
          const batch = await source.after(lastSentId, REPLAY_BATCH);
          for (const m of batch) {
            if (closed || m.id <= lastSentId) continue;
            write(`id: ${m.id}\nevent: message\ndata: ${JSON.stringify(m)}\n\n`);
            lastSentId = m.id;
          }
          if (batch.length < REPLAY_BATCH && !again) return;
        }
      }

      const stream: Stream = {
        userId: source.userId,
        catchUp() {
          if (closed) return;
          if (running) {
            again = true;
            return;
          }
          running = true;
          drain()
            .catch((err: Error) =>
              log.warn(
                { err: { message: loggedMessage(err), code: errorCode(err) } },
                'message stream could not read new messages; will retry on the next event',
              ),
            )
            .finally(() => {
              running = false;
              if (again && !closed) stream.catchUp();
            });
        },
        send: write,
        end: (reason) => end(reason, true),
        async checkSession() {
          // A database hiccup is not a revoked session: keep the stream and look again next time.
          const reason = await source.endReason().catch(() => null);
          if (reason) end(reason, true);
        },
      };

      const heartbeat = setInterval(() => write(': ping\n\n'), heartbeatMs);
      const sessionCheck = setInterval(() => void stream.checkSession(), sessionCheckMs);

      function end(reason: string, tell: boolean) {
        if (closed) return;
        if (tell) res.write(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
        closed = true;
        clearInterval(heartbeat);
        clearInterval(sessionCheck);
        all.delete(stream);
        const mine = byUser.get(source.userId);
        mine?.delete(stream);
        if (mine?.size === 0) byUser.delete(source.userId);
        if (reason === 'slow_consumer') res.destroy();
        else res.end();
      }

      res.on('close', () => end('client_closed', false));
      res.writeHead(200, {
        ...headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.flushHeaders();
      all.add(stream);
      if (!byUser.has(source.userId)) byUser.set(source.userId, new Set());
      byUser.get(source.userId)!.add(stream);
      // The ready event's id is where the client stands; a reconnect from it replays what it missed.
      write(`retry: 3000\nid: ${startId}\nevent: ready\ndata: ${JSON.stringify({ lastEventId: startId })}\n\n`);
      stream.catchUp();
    },

    /** Re-checks every open stream's session now (the timer does it every `sessionCheckMs`). */
    async recheckSessions(): Promise<void> {
      await Promise.all([...all].map((s) => s.checkSession()));
    },

    /** Ends every stream (server shutdown); clients reconnect to another instance. */
    closeAll(reason = 'server_shutdown') {
      for (const s of [...all]) s.end(reason);
      clearInterval(poll);
    },
  };
}
export type SseHub = ReturnType<typeof createSseHub>;

/** One of a user's stream slots, held between `reserve` and `open`. */
export interface StreamSlot {
  userId: string;
  release(): void;
}

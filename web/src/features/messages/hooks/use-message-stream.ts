// The stream's events are checked against their schemas: the messages page loads zod for them.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import { MessageSchema, ReadEventSchema } from '@medshare/contracts/messages';
import type { Message, ReadEvent } from '@medshare/contracts';
import { useEffect, useRef, useState } from 'react';
import { API_BASE } from '../../../lib/api-client';
import { SseParser } from '../utils/sse-parser';
import { endSessionFromStream } from './end-session';

export type StreamStatus = 'connecting' | 'live' | 'reconnecting';

export type MessageStreamHandlers = {
  onMessage: (message: Message) => void;
  onRead: (read: ReadEvent) => void;
  /** The stream is (again) live; `reconnected` after a drop, when the chat list may be stale. */
  onReady: (reconnected: boolean) => void;
};

/** `event: end` reasons after which the session is gone: reconnecting would only earn a 401. */
export const SESSION_END_REASONS = new Set(['session_revoked', 'token_expired', 'session_idle', 'account_inactive']);

const BACKOFF_BASE_MS = 1000;
const BACKOFF_MAX_MS = 30_000;
/** Two missed 15 s pings and a bit: the connection is dead even if the socket has not noticed. */
const SILENCE_LIMIT_MS = 40_000;

/** Exponential backoff with "equal jitter": half fixed, half random, capped. */
export function backoffDelay(attempt: number, random = Math.random): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return ceiling / 2 + random() * (ceiling / 2);
}

type StreamOutcome = 'reconnect' | 'stop' | 'session-ended';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * One live connection to GET /api/message/stream while the calling screen is mounted: fetch with
 * the bearer header (never EventSource, never a token in the URL), reconnecting after drops with
 * `Last-Event-ID`, so the server replays exactly what was missed. Handlers may see a message twice
 * (the send answer and the stream); callers merge by id.
 */
export function useMessageStream(token: string | null, handlers: MessageStreamHandlers): StreamStatus {
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const handlersRef = useRef(handlers);
  useEffect(() => {
    handlersRef.current = handlers;
  });

  useEffect(() => {
    if (!token) return;
    const stopped = new AbortController();
    let lastEventId: string | undefined;
    let everReady = false;

    async function connectOnce(): Promise<StreamOutcome> {
      const connection = new AbortController();
      const abortConnection = () => connection.abort();
      stopped.signal.addEventListener('abort', abortConnection, { once: true });
      let silence: ReturnType<typeof setTimeout> | undefined;
      const resetSilence = () => {
        clearTimeout(silence);
        silence = setTimeout(abortConnection, SILENCE_LIMIT_MS);
      };
      try {
        const headers = new Headers({ Accept: 'text/event-stream', Authorization: `Bearer ${token}` });
        if (lastEventId) headers.set('Last-Event-ID', lastEventId);
        resetSilence();
        const response = await fetch(`${API_BASE}/message/stream`, {
          headers,
          signal: connection.signal,
          cache: 'no-store',
          credentials: 'same-origin',
        });
        if (response.status === 401) return 'session-ended';
        // Not allowed to message at all: retrying cannot help.
        if (response.status === 403) return 'stop';
        if (!response.ok || !response.body) return 'reconnect';

        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        const parser = new SseParser();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return 'reconnect';
          resetSilence();
          for (const event of parser.push(value)) {
            if (event.lastEventId) lastEventId = event.lastEventId;
            const outcome = handleEvent(event.type, event.data);
            if (outcome) {
              void reader.cancel().catch(() => undefined);
              return outcome;
            }
          }
        }
      } catch {
        return stopped.signal.aborted ? 'stop' : 'reconnect';
      } finally {
        clearTimeout(silence);
        stopped.signal.removeEventListener('abort', abortConnection);
        connection.abort();
      }
    }

    /** Handles one event; answers an outcome when the connection must end. */
    function handleEvent(type: string, data: string): StreamOutcome | undefined {
      let payload: unknown;
      try {
        payload = JSON.parse(data);
      } catch {
        return undefined;
      }
      if (type === 'ready') {
        setStatus('live');
        attempt = 0;
        handlersRef.current.onReady(everReady);
        everReady = true;
      } else if (type === 'message') {
        const parsed = MessageSchema.safeParse(payload);
        if (parsed.success) handlersRef.current.onMessage(parsed.data);
      } else if (type === 'read') {
        const parsed = ReadEventSchema.safeParse(payload);
        if (parsed.success) handlersRef.current.onRead(parsed.data);
      } else if (type === 'end') {
        const reason = (payload as { reason?: unknown } | null)?.reason;
        return typeof reason === 'string' && SESSION_END_REASONS.has(reason) ? 'session-ended' : 'reconnect';
      }
      return undefined;
    }

    let attempt = 0;
    async function run() {
      while (!stopped.signal.aborted) {
        const outcome = await connectOnce();
        if (stopped.signal.aborted || outcome === 'stop') return;
        if (outcome === 'session-ended') {
          await endSessionFromStream();
          return;
        }
        setStatus('reconnecting');
        await sleep(backoffDelay(attempt), stopped.signal);
        attempt = Math.min(attempt + 1, 10);
      }
    }
    void run();
    return () => stopped.abort();
  }, [token]);

  return status;
}

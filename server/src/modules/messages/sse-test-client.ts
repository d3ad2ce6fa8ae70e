/** A fetch-based Server-Sent Events reader for tests and the benchmark (what the web app does too). */

export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
  at: number;
}

export interface SseConnection {
  status: number;
  events: SseEvent[];
  /** Resolves with the first event (already received or future) that matches. */
  next(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Splits a text/event-stream into events (comments dropped), per the HTML SSE parsing rules we use. */
export function parseSseChunk(buffer: string): { events: Omit<SseEvent, 'at'>[]; rest: string } {
  const events: Omit<SseEvent, 'at'>[] = [];
  const blocks = buffer.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let id: string | null = null;
    let event = 'message';
    const data: string[] = [];
    let any = false;
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else continue;
      any = true;
    }
    if (any) events.push({ id, event, data: data.join('\n') });
  }
  return { events, rest };
}

export async function openSse(
  url: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<SseConnection> {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
  let endedResolve: () => void = () => {};
  const ended = new Promise<void>((r) => (endedResolve = r));
  if (res.status === 200 && res.body) {
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          const parsed = parseSseChunk(buffer);
          buffer = parsed.rest;
          const at = performance.now();
          for (const e of parsed.events) events.push({ ...e, at });
          if (parsed.events.length) waiters.splice(0).forEach((w) => w());
        }
      } catch {
        // aborted by close()
      }
      endedResolve();
      waiters.splice(0).forEach((w) => w());
    })();
  } else {
    endedResolve();
  }
  let closed = res.status !== 200;
  ended.then(() => (closed = true));
  return {
    status: res.status,
    events,
    ended,
    async next(match, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(match);
        if (found) return found;
        if (closed) throw new Error('stream ended before the event came');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('timed out waiting for an event');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: () => controller.abort(),
  };
}

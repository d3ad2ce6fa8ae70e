import type { Message } from '@medshare/contracts';
import { renderHook, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_BASE } from '../../../lib/api-client';
import * as navigation from '../../../lib/navigation';
import { failure } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { backoffDelay, useMessageStream } from './use-message-stream';

// jsdom cannot navigate: the full page load is spied on, as in api-client.test.ts.
beforeEach(() => {
  vi.spyOn(navigation, 'hardNavigate').mockImplementation(() => {});
  vi.spyOn(navigation, 'currentPath').mockReturnValue('/messages');
});

const STREAM_HEADERS = { 'Content-Type': 'text/event-stream' };

const message = (id: number): Message => ({
  id,
  senderId: '22222222-2222-4222-8222-222222222222',
  recipientId: '11111111-1111-4111-8111-111111111111',
  content: `message ${id}`,
  createAt: '2026-03-09T10:00:00.000Z',
  readAt: null,
});

/**
 * Each connection gets the next scripted stream body (closed after its text); once the script is
 * used up, a connection stays open and silent. Returns every request the stream endpoint received.
 */
function scriptedStreams(bodies: string[]) {
  const seen: Request[] = [];
  server.use(
    http.get(`${API_BASE}/message/stream`, ({ request }) => {
      seen.push(request);
      const text = bodies.shift();
      if (text === undefined) return new HttpResponse(new ReadableStream(), { headers: STREAM_HEADERS });
      if (text === '401') return failure(401, 'Token expired');
      return new HttpResponse(text, { headers: STREAM_HEADERS });
    }),
  );
  return seen;
}

const handlers = () => ({ onMessage: vi.fn(), onRead: vi.fn(), onReady: vi.fn() });

describe('useMessageStream', () => {
  afterEach(() => vi.clearAllMocks());

  it('reconnects after server_shutdown with Last-Event-ID and reports the reconnect', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const calls = scriptedStreams([
      `id: 4\nevent: ready\ndata: {"lastEventId":4}\n\nid: 5\nevent: message\ndata: ${JSON.stringify(message(5))}\n\nevent: end\ndata: {"reason":"server_shutdown"}\n\n`,
      `id: 5\nevent: ready\ndata: {"lastEventId":5}\n\nid: 6\nevent: message\ndata: ${JSON.stringify(message(6))}\n\n`,
    ]);
    const h = handlers();
    const { unmount } = renderHook(() => useMessageStream('tok', h));
    await waitFor(() => expect(h.onMessage).toHaveBeenCalledTimes(2), { timeout: 3000 });
    expect(h.onMessage.mock.calls.map(([m]) => (m as Message).id)).toEqual([5, 6]);
    expect(calls[0]!.headers.get('Authorization')).toBe('Bearer tok');
    expect(calls[0]!.headers.has('Last-Event-ID')).toBe(false);
    expect(calls[1]!.headers.get('Last-Event-ID')).toBe('5');
    expect(h.onReady.mock.calls).toEqual([[false], [true]]);
    unmount();
  });

  it('does not reconnect when the session is over, and goes to the login page', async () => {
    const calls = scriptedStreams([
      `event: ready\ndata: {"lastEventId":0}\n\nevent: end\ndata: {"reason":"session_revoked"}\n\n`,
    ]);
    renderHook(() => useMessageStream('tok', handlers()));
    await waitFor(() => expect(navigation.hardNavigate).toHaveBeenCalledWith('/login'));
    await new Promise((r) => setTimeout(r, 1200));
    expect(calls).toHaveLength(1);
  });

  it('treats a 401 on connect as the end of the session', async () => {
    const calls = scriptedStreams(['401']);
    renderHook(() => useMessageStream('tok', handlers()));
    await waitFor(() => expect(navigation.hardNavigate).toHaveBeenCalledWith('/login'));
    expect(calls).toHaveLength(1);
  });

  it('stops reading when the screen unmounts', async () => {
    const calls = scriptedStreams([]);
    const { unmount } = renderHook(() => useMessageStream('tok', handlers()));
    await waitFor(() => expect(calls).toHaveLength(1));
    const { signal } = calls[0]!;
    expect(signal.aborted).toBe(false);
    unmount();
    expect(signal.aborted).toBe(true);
  });
});

describe('backoffDelay', () => {
  it('doubles per attempt with jitter in the upper half, capped at 30 s', () => {
    expect(backoffDelay(0, () => 0)).toBe(500);
    expect(backoffDelay(0, () => 1)).toBe(1000);
    expect(backoffDelay(3, () => 0)).toBe(4000);
    expect(backoffDelay(20, () => 1)).toBe(30_000);
    expect(backoffDelay(20, () => 0)).toBe(15_000);
  });
});

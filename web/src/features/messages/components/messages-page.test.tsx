import type { ChatListEntry, Message } from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { jsonResponse, makeUser, renderWithProviders } from '../../../testing/test-utils';
import { MessagesPage } from './messages-page';

const ME = makeUser({ id: '11111111-1111-4111-8111-111111111111', firstname: 'Amina', lastname: 'Khan' });
const DOC = {
  id: '22222222-2222-4222-8222-222222222222',
  firstname: 'Bilal',
  lastname: 'Ahmed',
  role: 'healthProvider' as const,
};

const message = (id: number, content: string, fromDoc = true): Message => ({
  id,
  senderId: fromDoc ? DOC.id : ME.id,
  recipientId: fromDoc ? ME.id : DOC.id,
  content,
  createAt: new Date().toISOString(),
  readAt: null,
});

const chatEntry = (last: Message, unreadCount = 0): ChatListEntry => ({
  ...DOC,
  lastMessage: { id: last.id, content: last.content, createAt: last.createAt, senderId: last.senderId },
  unreadCount,
});

const paged = (data: unknown[]) =>
  jsonResponse(200, {
    success: true,
    data,
    pagination: {
      currentPage: 1,
      pageSize: 50,
      totalPages: 1,
      totalItems: data.length,
      hasPrevPage: false,
      hasNextPage: false,
    },
  });

/** A server-sent event stream the test writes to. */
function controllableStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const encoder = new TextEncoder();
  return {
    response: () => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    write: (text: string) => controller.enqueue(encoder.encode(text)),
  };
}

type Api = { chats: ChatListEntry[]; thread: Message[]; users: unknown[] };

function stubApi(api: Api, stream = controllableStream()) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    calls.push({ url, init });
    if (url.startsWith('/api/appsetting/public')) {
      return jsonResponse(200, {
        success: true,
        data: { displayLocale: 'en-PK', displayTimeZone: 'Asia/Karachi', maxUploadMb: 10 },
      });
    }
    if (url.startsWith('/api/message/stream')) return stream.response();
    if (url.startsWith('/api/message/chat-list')) return paged(api.chats);
    if (url.startsWith('/api/message/users')) return paged(api.users);
    if (url.endsWith('/read'))
      return jsonResponse(200, { success: true, data: { marked: 1, unreadCount: 0, totalUnread: 0 } });
    if (url.startsWith('/api/message/chat/')) {
      return jsonResponse(200, {
        success: true,
        data: api.thread,
        cursor: { limit: 50, hasOlder: false, nextBefore: null },
      });
    }
    if (url.startsWith('/api/message/send')) {
      const body = JSON.parse(String(init?.body)) as { content: string };
      return jsonResponse(201, { success: true, message: 'Message sent', data: message(100, body.content, false) });
    }
    return jsonResponse(404, { success: false, message: 'Not found' });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, stream };
}

function desktopViewport(matches: boolean) {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches,
    media: query,
    onchange: null,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    addListener: () => undefined,
    removeListener: () => undefined,
    dispatchEvent: () => false,
  }));
}

describe('MessagesPage', () => {
  beforeEach(() => {
    store.dispatch(setUser({ user: ME, token: 'tok' }));
    desktopViewport(true);
  });
  afterEach(() => {
    store.dispatch(clearSession());
  });

  it("shows 'No chats available' and 'Select a chat to start messaging' for someone with no chats", async () => {
    stubApi({ chats: [], thread: [], users: [] });
    renderWithProviders(<MessagesPage />);
    expect(await screen.findByText('No chats available')).toBeInTheDocument();
    expect(screen.getByText('Select a chat to start messaging')).toBeInTheDocument();
  });

  it("says 'No users found' when the search by name or email matches nobody", async () => {
    const { calls } = stubApi({ chats: [], thread: [], users: [] });
    const user = userEvent.setup();
    renderWithProviders(<MessagesPage />);
    await user.click(await screen.findByRole('button', { name: 'Refresh chats' }));
    const dialog = await screen.findByRole('dialog', { name: 'Select User to Chat' });
    await user.type(within(dialog).getByLabelText('Search by name or email'), 'zz');
    expect(await within(dialog).findByText('No users found')).toBeInTheDocument();
    await waitFor(() => expect(calls.some((c) => c.url.includes('/api/message/users?search=zz'))).toBe(true));
  });

  it("opens a picked user's chat from the 'Send Message' dialog and shows 'No messages yet'", async () => {
    stubApi({ chats: [], thread: [], users: [{ ...DOC, email: 'bilal@example.test' }] });
    const user = userEvent.setup();
    renderWithProviders(<MessagesPage />);
    await user.click(await screen.findByRole('button', { name: 'Refresh chats' }));
    await user.click(await screen.findByRole('button', { name: /Bilal Ahmed/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Send Message' });
    await user.click(within(dialog).getByRole('button', { name: 'Open chat' }));
    expect(await screen.findByText('No messages yet')).toBeInTheDocument();
    expect(await screen.findByRole('log', { name: 'Messages with Bilal Ahmed' })).toHaveAttribute(
      'aria-live',
      'polite',
    );
  });

  it('sends on Enter, keeps Shift+Enter as a new line, never sends a blank message, labels it You', async () => {
    const first = message(1, 'Hello Amina');
    const { calls } = stubApi({ chats: [chatEntry(first)], thread: [first], users: [] });
    const user = userEvent.setup();
    renderWithProviders(<MessagesPage />);
    await user.click(await screen.findByRole('button', { name: /Bilal Ahmed/ }));
    const input = await screen.findByPlaceholderText('Type a message...');
    await user.type(input, '   {Enter}');
    expect(calls.some((c) => c.url.includes('/send'))).toBe(false);
    expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();

    await user.clear(input);
    await user.type(input, 'Line one{Shift>}{Enter}{/Shift}line two');
    expect(input).toHaveValue('Line one\nline two');
    await user.keyboard('{Enter}');

    const log = screen.getByRole('log');
    expect(await within(log).findByText(/Line one\s+line two/)).toBeInTheDocument();
    expect(within(log).getByText('You')).toBeInTheDocument();
    expect(input).toHaveValue('');
    const send = calls.find((c) => c.url.includes('/send'))!;
    expect(JSON.parse(String(send.init?.body))).toEqual({ recipientId: DOC.id, content: 'Line one\nline two' });
    expect(new Headers(send.init?.headers).get('Authorization')).toBe('Bearer tok');
  });

  it('shows a streamed message in the open thread once, even when it is delivered again', async () => {
    const first = message(1, 'Hello Amina');
    const { stream, calls } = stubApi({ chats: [chatEntry(first)], thread: [first], users: [] });
    const user = userEvent.setup();
    renderWithProviders(<MessagesPage />);
    await user.click(await screen.findByRole('button', { name: /Bilal Ahmed/ }));
    const log = await screen.findByRole('log');
    await within(log).findByText('Hello Amina');

    const live = JSON.stringify(message(2, 'Your results are in'));
    stream.write('retry: 3000\nid: 1\nevent: ready\ndata: {"lastEventId":1}\n\n: ping\n\n');
    stream.write(`id: 2\nevent: mess`);
    stream.write(`age\ndata: ${live}\n\nid: 2\nevent: message\ndata: ${live}\n\n`);

    expect(await within(log).findByText('Your results are in')).toBeInTheDocument();
    expect(within(log).getAllByText('Your results are in')).toHaveLength(1);
    const streamCall = calls.find((c) => c.url.startsWith('/api/message/stream'))!;
    expect(new Headers(streamCall.init?.headers).get('Authorization')).toBe('Bearer tok');
    expect(streamCall.url).not.toContain('tok');
    // Read while open: the chat is marked read.
    await waitFor(() => expect(calls.some((c) => c.url === `/api/message/chat/${DOC.id}/read`)).toBe(true));
  });

  it('shows the unread count as a badge and updates the list live', async () => {
    const first = message(1, 'Hello Amina');
    const { stream } = stubApi({ chats: [chatEntry(first, 1)], thread: [first], users: [] });
    renderWithProviders(<MessagesPage />);
    expect(await screen.findByText('1 unread message')).toBeInTheDocument();
    stream.write(`id: 2\nevent: message\ndata: ${JSON.stringify(message(2, 'Are you there?'))}\n\n`);
    expect(await screen.findByText('2 unread messages')).toBeInTheDocument();
    expect(screen.getByText('Are you there?')).toBeInTheDocument();
  });

  it('shows the list or the thread with a back arrow below 1024 px', async () => {
    desktopViewport(false);
    const first = message(1, 'Hello Amina');
    stubApi({ chats: [chatEntry(first)], thread: [first], users: [] });
    const user = userEvent.setup();
    renderWithProviders(<MessagesPage />);
    await user.click(await screen.findByRole('button', { name: /Bilal Ahmed/ }));
    expect(await screen.findByRole('log')).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: 'Chats' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Back to chats' }));
    expect(screen.getByRole('list', { name: 'Chats' })).toBeInTheDocument();
    expect(screen.queryByRole('log')).not.toBeInTheDocument();
  });
});

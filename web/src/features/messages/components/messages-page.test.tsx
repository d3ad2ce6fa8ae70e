import type {
  ChatListEntry,
  MarkReadResponseData,
  Message,
  MessageRecipient,
  PublicSettings,
  SendMessageBody,
} from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_BASE } from '../../../lib/api-client';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, eventStream, ok, paged } from '../../../testing/handlers';
import { recordRequests, server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
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

type Api = { chats: ChatListEntry[]; thread: Message[]; users: MessageRecipient[] };

/** The messages API answering from `data`, with a live stream the test writes to; every request is recorded. */
function stubApi(data: Api, stream = eventStream()) {
  server.use(
    api.get<PublicSettings>('/appsetting/public', () =>
      ok({
        displayLocale: 'en-PK',
        displayTimeZone: 'Asia/Karachi',
        maxUploadMb: 10,
        maxImportFiles: 2000,
        maxImportMb: 2048,
      }),
    ),
    http.get(`${API_BASE}/message/stream`, () => stream.response()),
    api.get<ChatListEntry[]>('/message/chat-list', () => paged(data.chats, { pageSize: 50 })),
    api.get<MessageRecipient[]>('/message/users', () => paged(data.users, { pageSize: 20 })),
    api.post<MarkReadResponseData>('/message/chat/:userId/read', () =>
      ok({ marked: 1, unreadCount: 0, totalUnread: 0 }),
    ),
    // A thread page carries a keyset `cursor` instead of `pagination` (contracts' ChatResponseSchema).
    http.get(`${API_BASE}/message/chat/:userId`, () =>
      HttpResponse.json({ success: true, data: data.thread, cursor: { limit: 50, hasOlder: false, nextBefore: null } }),
    ),
    api.post<Message, SendMessageBody>('/message/send', async ({ request }) => {
      const body = await request.json();
      // Stored like the server does: the thread asked for after the send includes it.
      const sent = message(100, body.content, false);
      data.thread.push(sent);
      return ok(sent, 'Message sent', 201);
    }),
  );
  return { requests: recordRequests(), stream };
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
    const { requests } = stubApi({ chats: [], thread: [], users: [] });
    const user = userEvent.setup();
    renderWithProviders(<MessagesPage />);
    await user.click(await screen.findByRole('button', { name: 'Refresh chats' }));
    const dialog = await screen.findByRole('dialog', { name: 'Select User to Chat' });
    await user.type(within(dialog).getByLabelText('Search by name or email'), 'zz');
    expect(await within(dialog).findByText('No users found')).toBeInTheDocument();
    await waitFor(() =>
      expect(
        requests.some(
          (r) => new URL(r.url).pathname === '/api/message/users' && new URL(r.url).searchParams.get('search') === 'zz',
        ),
      ).toBe(true),
    );
  });

  it('lists a person without an e-mail (what patients get for people they do not deal with yet) by name and role', async () => {
    stubApi({
      chats: [],
      thread: [],
      users: [
        { ...DOC, email: null },
        { ...DOC, id: '33333333-3333-4333-8333-333333333333', firstname: 'Cara', email: 'cara@example.test' },
      ],
    });
    const user = userEvent.setup();
    renderWithProviders(<MessagesPage />);
    await user.click(await screen.findByRole('button', { name: 'Refresh chats' }));
    const dialog = await screen.findByRole('dialog', { name: 'Select User to Chat' });
    const list = await within(dialog).findByRole('list', { name: 'Users' });
    const [bilal, cara] = within(list).getAllByRole('button');
    expect(bilal).toHaveTextContent('Bilal Ahmed');
    expect(bilal).toHaveTextContent('Health Provider');
    expect(bilal).not.toHaveTextContent('@');
    expect(cara).toHaveTextContent('cara@example.test');
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
    const { requests } = stubApi({ chats: [chatEntry(first)], thread: [first], users: [] });
    const user = userEvent.setup();
    renderWithProviders(<MessagesPage />);
    await user.click(await screen.findByRole('button', { name: /Bilal Ahmed/ }));
    const input = await screen.findByPlaceholderText('Type a message...');
    await user.type(input, '   {Enter}');
    expect(requests.some((r) => r.url.endsWith('/message/send'))).toBe(false);
    expect(screen.getByRole('button', { name: 'Send message' })).toBeDisabled();

    await user.clear(input);
    await user.type(input, 'Line one{Shift>}{Enter}{/Shift}line two');
    expect(input).toHaveValue('Line one\nline two');
    await user.keyboard('{Enter}');

    const log = screen.getByRole('log');
    expect(await within(log).findByText(/Line one\s+line two/)).toBeInTheDocument();
    expect(within(log).getByText('You')).toBeInTheDocument();
    expect(input).toHaveValue('');
    const sent = requests.filter((r) => r.url.endsWith('/message/send'));
    expect(sent).toHaveLength(1);
    expect(await sent[0]!.json()).toEqual({ recipientId: DOC.id, content: 'Line one\nline two' });
    expect(sent[0]!.headers.get('Authorization')).toBe('Bearer tok');
  });

  it('shows a streamed message in the open thread once, even when it is delivered again', async () => {
    const first = message(1, 'Hello Amina');
    const { stream, requests } = stubApi({ chats: [chatEntry(first)], thread: [first], users: [] });
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
    const streamCall = requests.find((r) => new URL(r.url).pathname === '/api/message/stream')!;
    expect(streamCall.headers.get('Authorization')).toBe('Bearer tok');
    expect(streamCall.url).not.toContain('tok');
    // Read while open: the chat is marked read.
    await waitFor(() =>
      expect(
        requests.some((r) => r.method === 'POST' && new URL(r.url).pathname === `/api/message/chat/${DOC.id}/read`),
      ).toBe(true),
    );
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

  it('reloads the thread and the chat list after a send, and shows a read receipt from the stream as Read', async () => {
    const first = message(1, 'Hello Amina');
    const { requests, stream } = stubApi({ chats: [chatEntry(first)], thread: [first], users: [] });
    const user = userEvent.setup();
    const gets = (pathname: string) =>
      requests.filter((r) => r.method === 'GET' && new URL(r.url).pathname === pathname).length;
    renderWithProviders(<MessagesPage />);
    await user.click(await screen.findByRole('button', { name: /Bilal Ahmed/ }));
    const log = await screen.findByRole('log');
    await within(log).findByText('Hello Amina');
    const listLoads = gets('/api/message/chat-list');
    const threadLoads = gets(`/api/message/chat/${DOC.id}`);

    await user.type(screen.getByPlaceholderText('Type a message...'), 'See you at ten{Enter}');
    expect(await within(log).findByText('See you at ten')).toBeInTheDocument();
    await waitFor(() => {
      expect(gets('/api/message/chat-list')).toBe(listLoads + 1);
      expect(gets(`/api/message/chat/${DOC.id}`)).toBe(threadLoads + 1);
    });
    expect(within(log).getByText('Sent')).toBeInTheDocument();

    const receipt = { readerId: DOC.id, senderId: ME.id, upToId: 100, readAt: new Date().toISOString() };
    stream.write(`event: read\ndata: ${JSON.stringify(receipt)}\n\n`);
    expect(await within(log).findByText('Read')).toBeInTheDocument();
    expect(within(log).queryByText('Sent')).not.toBeInTheDocument();
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

import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { ChatListEntry, Message, MessageRecipient, ReadEvent } from '@medshare/contracts';
import { skipToken } from '@reduxjs/toolkit/query/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { DESKTOP_MIN_WIDTH } from '../../../config/constants';
import { site } from '../../../config/site';
import { apiSlice } from '../../../lib/api-slice';
import { toastApiError } from '../../../lib/notify';
import { selectToken, selectUser } from '../../../lib/session';
import { useAppDispatch, useAppSelector } from '../../../lib/store';
import { threadMessages, useGetChatInfiniteQuery } from '../api/get-chat';
import { flattenChats, useGetChatListInfiniteQuery } from '../api/get-chat-list';
import { useMarkChatReadMutation } from '../api/mark-chat-read';
import { useSendMessageMutation } from '../api/send-message';
import { useDisplayZone, useMinuteClock } from '../hooks/use-display-zone';
import { useLiveCache } from '../hooks/use-live-cache';
import { useMessageStream } from '../hooks/use-message-stream';
import { ChatList, type LoadState } from './chat-list';
import { ChatThread, type Partner } from './chat-thread';
import { SelectUserDialog } from './select-user-dialog';
import { SendMessageDialog } from './send-message-dialog';
import { MessagesTexts, TOAST_POSITION } from './texts';

const pageVisible = () => document.visibilityState !== 'hidden';
const toastOptions = { position: TOAST_POSITION };

/**
 * /messages: the chat list, one open thread, the new-chat dialogs and the live stream. Lists and
 * threads live in the server-state cache: a send invalidates them, live events edit them in place.
 */
export function MessagesPage() {
  const me = useAppSelector(selectUser);
  const token = useAppSelector(selectToken);
  const meId = me?.id ?? '';
  const isDesktop = useMediaQuery(`(min-width:${DESKTOP_MIN_WIDTH}px)`, { noSsr: true });
  const zone = useDisplayZone();
  const now = useMinuteClock();
  const dispatch = useAppDispatch();
  const liveCache = useLiveCache(meId);

  const [partner, setPartnerState] = useState<Partner | null>(null);
  const [pickerOpen, setPickerOpen] = useState(false);
  const [recipient, setRecipient] = useState<Partner | null>(null);

  // Coming to the page (or back to a chat) shows what is cached at once and asks again.
  const chatList = useGetChatListInfiniteQuery(undefined, { refetchOnMountOrArgChange: true });
  const thread = useGetChatInfiniteQuery(partner?.id ?? skipToken, { refetchOnMountOrArgChange: true });
  const [sendMessage, { isLoading: sending }] = useSendMessageMutation();
  const [markChatRead] = useMarkChatReadMutation();

  const chats = useMemo(() => (chatList.data ? flattenChats(chatList.data.pages) : []), [chatList.data]);
  const chatsLoad: LoadState = chatList.data ? 'ready' : chatList.isError ? 'error' : 'loading';
  // `currentData`: while another partner's thread loads, the previous one must not show.
  const threadPages = thread.currentData?.pages;
  const messages = useMemo(() => (threadPages ? threadMessages(threadPages) : []), [threadPages]);
  const threadState: LoadState = threadPages ? 'ready' : thread.isError ? 'error' : 'loading';

  // Live events arrive outside React's render cycle; these refs hold what they need to decide.
  const chatsRef = useRef(chats);
  const partnerRef = useRef(partner);
  const markReadTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    chatsRef.current = chats;
  }, [chats]);

  const setPartner = useCallback((next: Partner | null) => {
    partnerRef.current = next;
    setPartnerState(next);
  }, []);

  useEffect(() => {
    if (chatList.isError) toastApiError(chatList.error, MessagesTexts.chatsFailed, toastOptions);
  }, [chatList.isError, chatList.error]);
  useEffect(() => {
    if (thread.isError) toastApiError(thread.error, MessagesTexts.threadFailed, toastOptions);
  }, [thread.isError, thread.error]);

  const markRead = useCallback(
    (partnerId: string) => {
      clearTimeout(markReadTimer.current);
      // A failure leaves the chat unread; it is tried again when it is opened or a message comes in.
      markReadTimer.current = setTimeout(() => void markChatRead(partnerId), 250);
    },
    [markChatRead],
  );

  // Read while open and in view: what the partner sent is marked read.
  useEffect(() => {
    if (!partner || !pageVisible()) return;
    if (messages.some((m) => m.senderId === partner.id && !m.readAt)) markRead(partner.id);
  }, [messages, partner, markRead]);

  const openChat = useCallback((next: Partner) => setPartner(next), [setPartner]);

  function loadOlder() {
    if (thread.hasNextPage && !thread.isFetchingNextPage) void thread.fetchNextPage();
  }

  /**
   * `docs/product.md` › States and transitions: appended, input cleared, dialogs closed, chat list and thread
   * reloaded.
   */
  async function send(to: Partner, content: string): Promise<boolean> {
    const text = content.trim();
    if (!text || sending) return false;
    try {
      await sendMessage({ recipientId: to.id, content: text }).unwrap();
      // Opening the chat loads its thread; an open one shows the message and is reloaded.
      if (partnerRef.current?.id !== to.id) openChat(to);
      setRecipient(null);
      setPickerOpen(false);
      return true;
    } catch (error) {
      toastApiError(error, MessagesTexts.sendFailed, toastOptions);
      return false;
    }
  }

  const onLiveMessage = useCallback(
    (m: Message) => {
      const open = partnerRef.current;
      const reading = open && pageVisible() ? open.id : null;
      if (!liveCache.message(m, reading)) dispatch(apiSlice.util.invalidateTags(['Conversations']));
    },
    [liveCache, dispatch],
  );

  const onLiveRead = useCallback((read: ReadEvent) => liveCache.read(read), [liveCache]);

  const onLiveReady = useCallback(
    (reconnected: boolean) => {
      // Read receipts are not replayed, and the list may have moved while we were away.
      if (reconnected) dispatch(apiSlice.util.invalidateTags(['Conversations', 'Messages']));
    },
    [dispatch],
  );

  const live = useMessageStream(token, { onMessage: onLiveMessage, onRead: onLiveRead, onReady: onLiveReady });

  useEffect(() => () => clearTimeout(markReadTimer.current), []);

  // Coming back to the tab reads what arrived in the open chat meanwhile.
  useEffect(() => {
    function onVisible() {
      const open = partnerRef.current;
      if (!pageVisible() || !open) return;
      if (chatsRef.current.some((c) => c.id === open.id && c.unreadCount > 0)) markRead(open.id);
    }
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [markRead]);

  function selectChat(entry: ChatListEntry) {
    openChat({ id: entry.id, firstname: entry.firstname, lastname: entry.lastname, role: entry.role });
    if (entry.unreadCount > 0) markRead(entry.id);
  }

  function pickRecipient(user: MessageRecipient) {
    setPickerOpen(false);
    setRecipient({ id: user.id, firstname: user.firstname, lastname: user.lastname, role: user.role });
  }

  const showList = isDesktop || !partner;
  const showThread = isDesktop || Boolean(partner);

  return (
    <>
      <title>{`${MessagesTexts.title} · ${site.name}`}</title>
      <Box
        sx={{
          display: 'flex',
          flexDirection: 'column',
          // The viewport less the top bar and the page padding of the app shell.
          height: {
            xs: 'calc(100dvh - 56px - 32px)',
            sm: 'calc(100dvh - 64px - 48px)',
            md: 'calc(100dvh - 64px - 64px)',
          },
          minHeight: 460,
        }}
      >
        <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 }, mb: { xs: 1.5, sm: 2 } }}>
          {MessagesTexts.title}
        </Typography>
        <Paper variant="outlined" sx={{ flex: 1, minHeight: 0, display: 'flex', overflow: 'hidden' }}>
          {showList && (
            <Box
              component="section"
              aria-label={MessagesTexts.chats}
              sx={{
                width: isDesktop ? 340 : '100%',
                flexShrink: 0,
                borderRight: isDesktop ? 1 : 0,
                borderColor: 'divider',
                minHeight: 0,
              }}
            >
              <ChatList
                chats={chats}
                state={chatsLoad}
                meId={meId}
                activeId={partner?.id ?? null}
                zone={zone}
                now={now}
                live={live}
                hasMore={chatList.hasNextPage}
                onSelect={selectChat}
                onRefresh={() => {
                  void chatList.refetch();
                  setPickerOpen(true);
                }}
                onRetry={() => void chatList.refetch()}
                onNewChat={() => setPickerOpen(true)}
                onLoadMore={() => void chatList.fetchNextPage()}
              />
            </Box>
          )}
          {showThread && (
            <Box component="section" aria-label="Conversation" sx={{ flex: 1, minWidth: 0, minHeight: 0 }}>
              {partner ? (
                <ChatThread
                  partner={partner}
                  messages={messages}
                  state={threadState}
                  hasOlder={thread.hasNextPage}
                  loadingOlder={thread.isFetchingNextPage}
                  sending={sending}
                  meId={meId}
                  zone={zone}
                  now={now}
                  onLoadOlder={loadOlder}
                  onRetry={() => void thread.refetch()}
                  onSend={(content) => send(partner, content)}
                  onBack={isDesktop ? undefined : () => setPartner(null)}
                />
              ) : (
                <Box sx={{ height: '100%', display: 'grid', placeItems: 'center', p: 3, bgcolor: '#f8fafc' }}>
                  <Typography color="text.secondary">{MessagesTexts.selectChat}</Typography>
                </Box>
              )}
            </Box>
          )}
        </Paper>
      </Box>

      <SelectUserDialog open={pickerOpen} onClose={() => setPickerOpen(false)} onPick={pickRecipient} />
      <SendMessageDialog
        recipient={recipient}
        sending={sending}
        onClose={() => setRecipient(null)}
        onSend={(content) => (recipient ? send(recipient, content) : Promise.resolve(false))}
        onOpenChat={() => {
          if (recipient) openChat(recipient);
          setRecipient(null);
        }}
      />
    </>
  );
}

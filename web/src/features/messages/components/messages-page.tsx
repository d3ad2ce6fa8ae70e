import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { ChatListEntry, Message, MessageRecipient, ReadEvent } from '@medshare/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { DESKTOP_MIN_WIDTH } from '../../../config/constants';
import { site } from '../../../config/site';
import { toastApiError } from '../../../lib/notify';
import { selectToken, selectUser } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { getChat } from '../api/get-chat';
import { getChatList } from '../api/get-chat-list';
import { markChatRead } from '../api/mark-chat-read';
import { sendMessage } from '../api/send-message';
import { useDisplayZone, useMinuteClock } from '../hooks/use-display-zone';
import { useMessageStream } from '../hooks/use-message-stream';
import {
  applyMessageToChats,
  applyReadReceipt,
  applyReadToChats,
  inThread,
  mergeMessages,
} from '../utils/merge-messages';
import { ChatList, type LoadState } from './chat-list';
import { ChatThread, type Partner } from './chat-thread';
import { SelectUserDialog } from './select-user-dialog';
import { SendMessageDialog } from './send-message-dialog';
import { MessagesTexts, TOAST_POSITION } from './texts';

type ThreadState = {
  partnerId: string | null;
  messages: Message[];
  state: LoadState;
  hasOlder: boolean;
  loadingOlder: boolean;
};

const emptyThread: ThreadState = {
  partnerId: null,
  messages: [],
  state: 'ready',
  hasOlder: false,
  loadingOlder: false,
};

const isAbort = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';
const pageVisible = () => document.visibilityState !== 'hidden';

/** /messages: the chat list, one open thread, the new-chat dialogs and the live stream. */
export function MessagesPage() {
  const me = useAppSelector(selectUser);
  const token = useAppSelector(selectToken);
  const meId = me?.id ?? '';
  const isDesktop = useMediaQuery(`(min-width:${DESKTOP_MIN_WIDTH}px)`, { noSsr: true });
  const zone = useDisplayZone();
  const now = useMinuteClock();

  const [chats, setChatsState] = useState<ChatListEntry[]>([]);
  const [chatsLoad, setChatsLoad] = useState<LoadState>('loading');
  const [chatPages, setChatPages] = useState({ loaded: 1, hasMore: false });
  const [partner, setPartnerState] = useState<Partner | null>(null);
  const [thread, setThread] = useState<ThreadState>(emptyThread);
  const [sending, setSending] = useState(false);
  const [pickerOpen, setPickerOpen] = useState(false);
  const [recipient, setRecipient] = useState<Partner | null>(null);

  // Live events arrive outside React's render cycle; these refs hold what they need to decide.
  const chatsRef = useRef(chats);
  const partnerRef = useRef(partner);
  const chatListRequest = useRef<AbortController | null>(null);
  const threadRequest = useRef<AbortController | null>(null);
  const markReadTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const setChats = useCallback((next: ChatListEntry[]) => {
    chatsRef.current = next;
    setChatsState(next);
  }, []);
  const setPartner = useCallback((next: Partner | null) => {
    partnerRef.current = next;
    setPartnerState(next);
  }, []);

  const reloadChats = useCallback(async () => {
    chatListRequest.current?.abort();
    const controller = new AbortController();
    chatListRequest.current = controller;
    setChatsLoad((s) => (s === 'error' ? 'loading' : s));
    try {
      const result = await getChatList(1, controller.signal);
      setChats(result.data);
      setChatPages({ loaded: 1, hasMore: Boolean(result.pagination?.hasNextPage) });
      setChatsLoad('ready');
    } catch (error) {
      if (isAbort(error) || controller.signal.aborted) return;
      setChatsLoad((s) => (s === 'ready' && chatsRef.current.length > 0 ? s : 'error'));
      toastApiError(error, MessagesTexts.chatsFailed, { position: TOAST_POSITION });
    }
  }, [setChats]);

  async function loadMoreChats() {
    try {
      const page = chatPages.loaded + 1;
      const result = await getChatList(page);
      const known = new Set(chatsRef.current.map((c) => c.id));
      setChats([...chatsRef.current, ...result.data.filter((c) => !known.has(c.id))]);
      setChatPages({ loaded: page, hasMore: Boolean(result.pagination?.hasNextPage) });
    } catch (error) {
      toastApiError(error, MessagesTexts.chatsFailed, { position: TOAST_POSITION });
    }
  }

  const markRead = useCallback(
    (partnerId: string) => {
      clearTimeout(markReadTimer.current);
      markReadTimer.current = setTimeout(() => {
        markChatRead(partnerId)
          .then((r) => {
            setChats(chatsRef.current.map((c) => (c.id === partnerId ? { ...c, unreadCount: r.data.unreadCount } : c)));
          })
          .catch(() => {
            // Stays unread and is tried again when the chat is opened or a message comes in.
          });
      }, 250);
    },
    [setChats],
  );

  /** The newest page of the open thread, merged into what is shown (older pages stay). */
  const reloadThread = useCallback(
    async (partnerId: string, fresh: boolean) => {
      threadRequest.current?.abort();
      const controller = new AbortController();
      threadRequest.current = controller;
      try {
        const page = await getChat(partnerId, undefined, controller.signal);
        setThread((t) =>
          t.partnerId !== partnerId
            ? t
            : {
                ...t,
                messages: mergeMessages(t.messages, page.messages),
                hasOlder: fresh ? page.hasOlder : t.hasOlder,
                state: 'ready',
              },
        );
        const unreadHere = page.messages.some((m) => m.senderId === partnerId && !m.readAt);
        if (unreadHere && pageVisible() && partnerRef.current?.id === partnerId) markRead(partnerId);
      } catch (error) {
        if (isAbort(error) || controller.signal.aborted) return;
        setThread((t) => (t.partnerId === partnerId && t.messages.length === 0 ? { ...t, state: 'error' } : t));
        toastApiError(error, MessagesTexts.threadFailed, { position: TOAST_POSITION });
      }
    },
    [markRead],
  );

  const openChat = useCallback(
    (next: Partner) => {
      setPartner(next);
      if (thread.partnerId === next.id) {
        // Back from the list on a small screen: catch up on what came in while it was closed.
        void reloadThread(next.id, false);
        return;
      }
      setThread({ partnerId: next.id, messages: [], state: 'loading', hasOlder: false, loadingOlder: false });
      void reloadThread(next.id, true);
    },
    [reloadThread, setPartner, thread.partnerId],
  );

  async function loadOlder() {
    const partnerId = thread.partnerId;
    const oldest = thread.messages[0]?.id;
    if (!partnerId || !oldest || thread.loadingOlder || !thread.hasOlder) return;
    setThread((t) => ({ ...t, loadingOlder: true }));
    try {
      const page = await getChat(partnerId, oldest);
      setThread((t) =>
        t.partnerId !== partnerId
          ? t
          : { ...t, messages: mergeMessages(t.messages, page.messages), hasOlder: page.hasOlder, loadingOlder: false },
      );
    } catch (error) {
      setThread((t) => ({ ...t, loadingOlder: false }));
      toastApiError(error, MessagesTexts.threadFailed, { position: TOAST_POSITION });
    }
  }

  /** Spec §4: appended, input cleared, dialogs closed, chat list and thread reloaded. */
  async function send(to: Partner, content: string): Promise<boolean> {
    const text = content.trim();
    if (!text || sending) return false;
    setSending(true);
    try {
      const result = await sendMessage({ recipientId: to.id, content: text });
      // Opening the chat loads its thread; an open one is reloaded.
      if (partnerRef.current?.id !== to.id) openChat(to);
      else void reloadThread(to.id, false);
      setThread((t) => (t.partnerId === to.id ? { ...t, messages: mergeMessages(t.messages, [result.data]) } : t));
      setRecipient(null);
      setPickerOpen(false);
      void reloadChats();
      return true;
    } catch (error) {
      toastApiError(error, MessagesTexts.sendFailed, { position: TOAST_POSITION });
      return false;
    } finally {
      setSending(false);
    }
  }

  const onLiveMessage = useCallback(
    (m: Message) => {
      const open = partnerRef.current;
      const reading = open && pageVisible() ? open.id : null;
      if (open && inThread(m, meId, open.id)) {
        setThread((t) => (t.partnerId === open.id ? { ...t, messages: mergeMessages(t.messages, [m]) } : t));
        if (m.senderId === open.id && reading) markRead(open.id);
      }
      const update = applyMessageToChats(chatsRef.current, m, meId, reading);
      if (update.known) setChats(update.chats);
      else void reloadChats();
    },
    [meId, markRead, reloadChats, setChats],
  );

  const onLiveRead = useCallback(
    (read: ReadEvent) => {
      setThread((t) => ({ ...t, messages: applyReadReceipt(t.messages, meId, read) }));
      setChats(applyReadToChats(chatsRef.current, meId, read));
    },
    [meId, setChats],
  );

  const onLiveReady = useCallback(
    (reconnected: boolean) => {
      if (!reconnected) return;
      // Read receipts are not replayed, and the list may have moved while we were away.
      void reloadChats();
      const open = partnerRef.current;
      if (open) void reloadThread(open.id, false);
    },
    [reloadChats, reloadThread],
  );

  const live = useMessageStream(token, { onMessage: onLiveMessage, onRead: onLiveRead, onReady: onLiveReady });

  useEffect(() => {
    void reloadChats();
    return () => {
      chatListRequest.current?.abort();
      threadRequest.current?.abort();
      clearTimeout(markReadTimer.current);
    };
  }, [reloadChats]);

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
                hasMore={chatPages.hasMore}
                onSelect={selectChat}
                onRefresh={() => {
                  void reloadChats();
                  setPickerOpen(true);
                }}
                onRetry={() => void reloadChats()}
                onNewChat={() => setPickerOpen(true)}
                onLoadMore={() => void loadMoreChats()}
              />
            </Box>
          )}
          {showThread && (
            <Box component="section" aria-label="Conversation" sx={{ flex: 1, minWidth: 0, minHeight: 0 }}>
              {partner ? (
                <ChatThread
                  partner={partner}
                  messages={thread.partnerId === partner.id ? thread.messages : []}
                  state={thread.partnerId === partner.id ? thread.state : 'loading'}
                  hasOlder={thread.hasOlder}
                  loadingOlder={thread.loadingOlder}
                  sending={sending}
                  meId={meId}
                  zone={zone}
                  now={now}
                  onLoadOlder={() => void loadOlder()}
                  onRetry={() => {
                    setThread((t) => ({ ...t, state: 'loading' }));
                    void reloadThread(partner.id, true);
                  }}
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

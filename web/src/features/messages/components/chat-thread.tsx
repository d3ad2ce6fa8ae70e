import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import DoneIcon from '@mui/icons-material/Done';
import DoneAllIcon from '@mui/icons-material/DoneAll';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Typography from '@mui/material/Typography';
import type { Message, RoleName } from '@medshare/contracts';
import { useLayoutEffect, useRef } from 'react';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { roleLabel } from '../../../lib/roles';
import { formatFullTime, formatMessageTime, type DisplayZone } from '../utils/format-timestamp';
import { AvatarInitials } from './avatar-initials';
import type { LoadState } from './chat-list';
import { MessageComposer } from './message-composer';
import { MessagesTexts } from './texts';

export type Partner = { id: string; firstname: string; lastname: string; role: RoleName };

type ChatThreadProps = {
  partner: Partner;
  messages: Message[];
  state: LoadState;
  hasOlder: boolean;
  loadingOlder: boolean;
  sending: boolean;
  meId: string;
  zone: DisplayZone;
  now: Date;
  onLoadOlder: () => void;
  onRetry: () => void;
  onSend: (content: string) => Promise<boolean>;
  /** Shown below 1024 px, where the thread replaces the list. */
  onBack?: () => void;
};

/** Within this distance of the bottom the view follows new messages. */
const STICK_PX = 80;
/** Within this distance of the top, scrolling up loads the page before. */
const LOAD_OLDER_PX = 120;

function MessageBubble({
  m,
  mine,
  partnerName,
  zone,
  now,
}: {
  m: Message;
  mine: boolean;
  partnerName: string;
  zone: DisplayZone;
  now: Date;
}) {
  return (
    <Box
      component="li"
      sx={{ alignSelf: mine ? 'flex-end' : 'flex-start', maxWidth: { xs: '85%', sm: '72%' }, listStyle: 'none' }}
    >
      <Box
        sx={{
          px: 1.5,
          py: 1,
          borderRadius: 2.5,
          borderBottomRightRadius: mine ? 6 : undefined,
          borderBottomLeftRadius: mine ? undefined : 6,
          bgcolor: mine ? 'primary.main' : '#eef2f7',
          color: mine ? 'primary.contrastText' : 'text.primary',
        }}
      >
        <Typography component="p" sx={{ fontSize: 12, fontWeight: 700, mb: 0.25 }}>
          {mine ? MessagesTexts.you : partnerName}
        </Typography>
        <Typography component="p" sx={{ fontSize: 15, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {m.content}
        </Typography>
      </Box>
      <Box
        sx={{
          display: 'flex',
          alignItems: 'center',
          justifyContent: mine ? 'flex-end' : 'flex-start',
          gap: 0.5,
          mt: 0.25,
          px: 0.5,
          color: 'text.secondary',
          fontSize: 12,
        }}
      >
        <time dateTime={m.createAt} title={formatFullTime(m.createAt, zone)}>
          {formatMessageTime(m.createAt, zone, now)}
        </time>
        {mine &&
          (m.readAt ? (
            <>
              <DoneAllIcon aria-hidden sx={{ fontSize: 15, color: 'primary.main' }} />
              <span>Read</span>
            </>
          ) : (
            <>
              <DoneIcon aria-hidden sx={{ fontSize: 15 }} />
              <span>Sent</span>
            </>
          ))}
      </Box>
    </Box>
  );
}

/** One conversation: header, the message log (older pages load at the top), the composer. */
export function ChatThread(props: ChatThreadProps) {
  const { partner, messages, state, hasOlder, loadingOlder, meId, zone, now } = props;
  const name = `${partner.firstname} ${partner.lastname}`;
  const logRef = useRef<HTMLDivElement>(null);
  // Where the view stood at the last render, to keep it there when a page is prepended.
  const before = useRef({ firstId: 0, lastId: 0, scrollHeight: 0, scrollTop: 0, nearBottom: true });

  useLayoutEffect(() => {
    const el = logRef.current;
    if (!el) return;
    const firstId = messages[0]?.id ?? 0;
    const lastId = messages.at(-1)?.id ?? 0;
    const prev = before.current;
    if (prev.firstId && firstId && firstId < prev.firstId && lastId === prev.lastId) {
      // Older messages above: the ones in view stay where they were.
      el.scrollTop = el.scrollHeight - prev.scrollHeight + prev.scrollTop;
    } else if (lastId !== prev.lastId) {
      const mineAtEnd = messages.at(-1)?.senderId === meId;
      if (!prev.lastId || prev.nearBottom || mineAtEnd) el.scrollTop = el.scrollHeight;
    }
    before.current = {
      firstId,
      lastId,
      scrollHeight: el.scrollHeight,
      scrollTop: el.scrollTop,
      nearBottom: el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX,
    };
  }, [messages, meId]);

  function onScroll() {
    const el = logRef.current;
    if (!el) return;
    before.current = {
      ...before.current,
      scrollHeight: el.scrollHeight,
      scrollTop: el.scrollTop,
      nearBottom: el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX,
    };
    if (el.scrollTop < LOAD_OLDER_PX && hasOlder && !loadingOlder && state === 'ready') props.onLoadOlder();
  }

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: '100%', minHeight: 0 }}>
      <Box
        sx={{
          display: 'flex',
          alignItems: 'center',
          gap: 1.5,
          px: 2,
          py: 1.25,
          borderBottom: 1,
          borderColor: 'divider',
        }}
      >
        {props.onBack && (
          <IconButton edge="start" aria-label={MessagesTexts.back} onClick={props.onBack}>
            <ArrowBackIcon />
          </IconButton>
        )}
        <AvatarInitials firstname={partner.firstname} lastname={partner.lastname} role={partner.role} size={38} />
        <Box sx={{ minWidth: 0 }}>
          <Typography variant="h6" component="h2" noWrap sx={{ fontSize: 17, lineHeight: 1.3 }}>
            {name}
          </Typography>
          <Typography sx={{ fontSize: 13, color: 'text.secondary' }}>{roleLabel(partner.role)}</Typography>
        </Box>
      </Box>

      <Box
        ref={logRef}
        role="log"
        aria-live="polite"
        aria-label={`Messages with ${name}`}
        aria-busy={state === 'loading' || loadingOlder}
        tabIndex={0}
        onScroll={onScroll}
        sx={{
          flex: 1,
          minHeight: 0,
          overflowY: 'auto',
          px: { xs: 1.5, sm: 2.5 },
          py: 2,
          bgcolor: '#f8fafc',
          '&:focus-visible': { outline: '2px solid', outlineColor: 'primary.main', outlineOffset: -2 },
        }}
      >
        {hasOlder && state === 'ready' && (
          <Box sx={{ textAlign: 'center', mb: 1.5 }}>
            <Button size="small" onClick={props.onLoadOlder} disabled={loadingOlder}>
              {loadingOlder ? 'Loading…' : MessagesTexts.loadOlder}
            </Button>
          </Box>
        )}
        {state === 'loading' && messages.length === 0 && (
          <Box sx={{ display: 'grid', placeItems: 'center', py: 6 }}>
            <DelayedCircularProgress size={28} aria-label="Loading messages" />
          </Box>
        )}
        {state === 'error' && messages.length === 0 && (
          <Box sx={{ textAlign: 'center', py: 6 }}>
            <Typography color="text.secondary" sx={{ mb: 1.5 }}>
              {MessagesTexts.threadFailed}
            </Typography>
            <Button variant="outlined" onClick={props.onRetry}>
              Try again
            </Button>
          </Box>
        )}
        {state === 'ready' && messages.length === 0 && (
          <Typography color="text.secondary" sx={{ textAlign: 'center', py: 6 }}>
            {MessagesTexts.noMessages}
          </Typography>
        )}
        {messages.length > 0 && (
          <Box component="ol" sx={{ display: 'flex', flexDirection: 'column', gap: 1.25, m: 0, p: 0 }}>
            {messages.map((m) => (
              <MessageBubble
                key={m.id}
                m={m}
                mine={m.senderId === meId}
                partnerName={partner.firstname}
                zone={zone}
                now={now}
              />
            ))}
          </Box>
        )}
      </Box>

      <MessageComposer key={partner.id} onSend={props.onSend} sending={props.sending} recipientName={name} />
    </Box>
  );
}

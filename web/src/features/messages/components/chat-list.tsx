import RefreshIcon from '@mui/icons-material/Refresh';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import type { ChatListEntry } from '@medshare/contracts';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import type { StreamStatus } from '../hooks/use-message-stream';
import { formatFullTime, formatMessageTime, type DisplayZone } from '../utils/format-timestamp';
import { AvatarInitials } from './avatar-initials';
import { MessagesTexts } from './texts';

export type LoadState = 'loading' | 'ready' | 'error';

type ChatListProps = {
  chats: ChatListEntry[];
  state: LoadState;
  meId: string;
  activeId: string | null;
  zone: DisplayZone;
  now: Date;
  live: StreamStatus;
  hasMore: boolean;
  onSelect: (entry: ChatListEntry) => void;
  onRefresh: () => void;
  onRetry: () => void;
  onNewChat: () => void;
  onLoadMore: () => void;
};

const liveLabel: Record<StreamStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
};

function LiveIndicator({ status }: { status: StreamStatus }) {
  const color = status === 'live' ? 'success.main' : 'warning.main';
  return (
    <Box
      role="status"
      sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75, color: 'text.secondary', fontSize: 13 }}
    >
      <Box aria-hidden sx={{ width: 8, height: 8, borderRadius: '50%', bgcolor: color }} />
      {liveLabel[status]}
    </Box>
  );
}

/** Conversation partners, most recent first, with the last message and an unread badge. */
export function ChatList(props: ChatListProps) {
  const { chats, state, meId, activeId, zone, now, live, hasMore } = props;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', minHeight: 0, height: '100%' }}>
      <Box
        sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 2, py: 1.5, borderBottom: 1, borderColor: 'divider' }}
      >
        <Typography variant="h6" component="h2" sx={{ fontSize: 18, flexGrow: 1 }}>
          {MessagesTexts.chats}
        </Typography>
        <LiveIndicator status={live} />
        <Tooltip title="Refresh and select user to chat">
          <IconButton aria-label={MessagesTexts.refresh} onClick={props.onRefresh} color="primary">
            <RefreshIcon />
          </IconButton>
        </Tooltip>
      </Box>

      <Box sx={{ flex: 1, minHeight: 0, overflowY: 'auto' }}>
        {state === 'loading' && chats.length === 0 && (
          <Box sx={{ display: 'grid', placeItems: 'center', py: 6 }}>
            <DelayedCircularProgress size={28} aria-label="Loading chats" />
          </Box>
        )}
        {state === 'error' && chats.length === 0 && (
          <Box sx={{ textAlign: 'center', py: 6, px: 2 }}>
            <Typography color="text.secondary" sx={{ mb: 1.5 }}>
              {MessagesTexts.chatsFailed}
            </Typography>
            <Button variant="outlined" onClick={props.onRetry}>
              Try again
            </Button>
          </Box>
        )}
        {state === 'ready' && chats.length === 0 && (
          <Box sx={{ textAlign: 'center', py: 6, px: 2 }}>
            <Typography color="text.secondary" sx={{ mb: 1.5 }}>
              {MessagesTexts.noChats}
            </Typography>
            <Button variant="outlined" onClick={props.onNewChat}>
              Start a chat
            </Button>
          </Box>
        )}
        {chats.length > 0 && (
          <List aria-label={MessagesTexts.chats} disablePadding>
            {chats.map((chat) => {
              const name = `${chat.firstname} ${chat.lastname}`;
              const mine = chat.lastMessage.senderId === meId;
              const selected = chat.id === activeId;
              const unread = chat.unreadCount;
              return (
                <li key={chat.id}>
                  <ListItemButton
                    selected={selected}
                    aria-current={selected ? 'true' : undefined}
                    onClick={() => props.onSelect(chat)}
                    sx={{ gap: 1.5, py: 1.25, px: 2, borderRadius: 0, alignItems: 'center' }}
                  >
                    <AvatarInitials firstname={chat.firstname} lastname={chat.lastname} role={chat.role} />
                    <Box sx={{ minWidth: 0, flex: 1 }}>
                      <Box sx={{ display: 'flex', alignItems: 'baseline', gap: 1 }}>
                        <Typography
                          component="span"
                          noWrap
                          sx={{ flex: 1, minWidth: 0, fontWeight: unread > 0 ? 800 : 600, fontSize: 15 }}
                        >
                          {name}
                        </Typography>
                        <Typography
                          component="time"
                          dateTime={chat.lastMessage.createAt}
                          title={formatFullTime(chat.lastMessage.createAt, zone)}
                          sx={{ fontSize: 12, color: unread > 0 ? 'primary.main' : 'text.secondary', flexShrink: 0 }}
                        >
                          {formatMessageTime(chat.lastMessage.createAt, zone, now)}
                        </Typography>
                      </Box>
                      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
                        <Typography
                          component="span"
                          noWrap
                          sx={{
                            flex: 1,
                            minWidth: 0,
                            fontSize: 14,
                            color: unread > 0 ? 'text.primary' : 'text.secondary',
                          }}
                        >
                          {mine ? `${MessagesTexts.you}: ` : ''}
                          {chat.lastMessage.content}
                        </Typography>
                        {unread > 0 && (
                          <Box
                            component="span"
                            sx={{
                              minWidth: 22,
                              height: 22,
                              px: 0.75,
                              borderRadius: 11,
                              bgcolor: 'primary.main',
                              color: 'primary.contrastText',
                              fontSize: 12,
                              fontWeight: 700,
                              display: 'inline-grid',
                              placeItems: 'center',
                              flexShrink: 0,
                            }}
                          >
                            <span aria-hidden>{unread > 99 ? '99+' : unread}</span>
                            <Box component="span" sx={visuallyHidden}>
                              {unread === 1 ? '1 unread message' : `${unread} unread messages`}
                            </Box>
                          </Box>
                        )}
                      </Box>
                    </Box>
                  </ListItemButton>
                </li>
              );
            })}
          </List>
        )}
        {hasMore && (
          <Box sx={{ textAlign: 'center', py: 1.5 }}>
            <Button onClick={props.onLoadMore}>Load more chats</Button>
          </Box>
        )}
      </Box>
    </Box>
  );
}

export const visuallyHidden = {
  position: 'absolute',
  width: 1,
  height: 1,
  p: 0,
  m: '-1px',
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
  border: 0,
} as const;

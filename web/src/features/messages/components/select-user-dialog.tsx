import SearchIcon from '@mui/icons-material/Search';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import InputAdornment from '@mui/material/InputAdornment';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { MessageRecipient } from '@medshare/contracts';
import { skipToken } from '@reduxjs/toolkit/query/react';
import { useState } from 'react';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { roleLabel } from '../../../lib/roles';
import { useDebouncedValue } from '../../../lib/use-debounced-value';
import { useSearchRecipientsQuery } from '../api/search-recipients';
import { AvatarInitials } from './avatar-initials';
import { MessagesTexts } from './texts';

const SEARCH_DEBOUNCE_MS = 250;

type SelectUserDialogProps = {
  open: boolean;
  onClose: () => void;
  onPick: (user: MessageRecipient) => void;
  fullScreen?: boolean;
};

type Results = { state: 'loading' | 'ready' | 'error'; users: MessageRecipient[] };

/** 'Select User to Chat': people the caller may write to, searched by name or e-mail. */
export function SelectUserDialog({ open, onClose, onPick, fullScreen }: SelectUserDialogProps) {
  const [search, setSearch] = useState('');
  const query = useDebouncedValue(search, SEARCH_DEBOUNCE_MS);
  const found = useSearchRecipientsQuery(open ? query : skipToken);
  // The last answer stays (dimmed) while the next search runs.
  const results: Results = found.isError
    ? { state: 'error', users: [] }
    : { state: found.isFetching || !found.data ? 'loading' : 'ready', users: found.data ?? [] };

  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullWidth
      maxWidth="sm"
      fullScreen={fullScreen}
      aria-labelledby="select-user-title"
      slotProps={{ transition: { onExited: () => setSearch('') } }}
    >
      <DialogTitle id="select-user-title">{MessagesTexts.selectUserTitle}</DialogTitle>
      <DialogContent dividers sx={{ px: { xs: 2, sm: 3 } }}>
        <TextField
          autoFocus
          label={MessagesTexts.searchLabel}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          size="small"
          slotProps={{
            htmlInput: { maxLength: 100 },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" aria-hidden />
                </InputAdornment>
              ),
            },
          }}
          sx={{ mb: 1.5 }}
        />
        <Box sx={{ minHeight: 240 }} aria-live="polite" aria-busy={results.state === 'loading'}>
          {results.state === 'loading' && results.users.length === 0 && (
            <Box sx={{ display: 'grid', placeItems: 'center', py: 5 }}>
              <DelayedCircularProgress size={26} aria-label="Searching users" />
            </Box>
          )}
          {results.state === 'error' && (
            <Typography color="error" sx={{ textAlign: 'center', py: 5 }}>
              {MessagesTexts.usersFailed}
            </Typography>
          )}
          {results.state === 'ready' && results.users.length === 0 && (
            <Typography color="text.secondary" sx={{ textAlign: 'center', py: 5 }}>
              {MessagesTexts.noUsers}
            </Typography>
          )}
          {results.users.length > 0 && results.state !== 'error' && (
            <List aria-label="Users" disablePadding sx={{ opacity: results.state === 'loading' ? 0.6 : 1 }}>
              {results.users.map((u) => (
                <li key={u.id}>
                  <ListItemButton onClick={() => onPick(u)} sx={{ gap: 1.5, px: 1, borderRadius: 2 }}>
                    <AvatarInitials firstname={u.firstname} lastname={u.lastname} role={u.role} size={36} />
                    <Box sx={{ minWidth: 0, flex: 1 }}>
                      <Typography noWrap sx={{ fontWeight: 600, fontSize: 15 }}>
                        {u.firstname} {u.lastname}
                      </Typography>
                      {/* Patients get an e-mail only for people they already deal with. */}
                      {u.email && (
                        <Typography noWrap sx={{ fontSize: 13, color: 'text.secondary' }}>
                          {u.email}
                        </Typography>
                      )}
                    </Box>
                    <Chip size="small" label={roleLabel(u.role)} variant="outlined" sx={{ flexShrink: 0 }} />
                  </ListItemButton>
                </li>
              ))}
            </List>
          )}
        </Box>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
      </DialogActions>
    </Dialog>
  );
}

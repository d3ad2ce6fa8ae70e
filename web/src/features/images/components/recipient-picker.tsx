import SearchIcon from '@mui/icons-material/Search';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import InputAdornment from '@mui/material/InputAdornment';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { RoleName, ShareState, UserListItem } from '@medshare/contracts';
import { skipToken } from '@reduxjs/toolkit/query/react';
import { useEffect, useState } from 'react';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { roleLabel } from '../../../lib/roles';
import { useDebouncedValue } from '../../../lib/use-debounced-value';
import { useSearchUsersQuery } from '../api/search-users';

/**
 * The parts the image and study Share dialogs have in common (`docs/product.md` › View images):
 * the user search with role badges, the expiry in hours, and the colours of a share's state.
 */

/**
 * `docs/product.md` › Constants and limits: shares last 24 hours unless the sender says otherwise; the server
 * caps the value.
 */
export const DEFAULT_SHARE_HOURS = 24;
export const MAX_SHARE_HOURS = 8760;
const SEARCH_DELAY_MS = 250;

const roleColors: Record<RoleName, 'primary' | 'secondary' | 'default'> = {
  patient: 'primary',
  healthProvider: 'secondary',
  admin: 'default',
};

export const stateColors: Record<ShareState, 'warning' | 'success' | 'default' | 'error'> = {
  pending: 'warning',
  verified: 'success',
  expired: 'default',
  revoked: 'default',
  locked: 'error',
};

export const isLiveShare = (share: { state: ShareState }) => share.state === 'pending' || share.state === 'verified';

/** Who to share with: a name search over the users the caller may see, the viewer left out. */
export function RecipientPicker({
  open,
  viewerId,
  selected,
  onSelect,
}: {
  open: boolean;
  viewerId: string;
  selected: UserListItem | null;
  onSelect: (user: UserListItem) => void;
}) {
  const [search, setSearch] = useState('');
  useEffect(() => {
    if (open) setSearch('');
  }, [open]);
  const query = useDebouncedValue(search, SEARCH_DELAY_MS);
  const found = useSearchUsersQuery(open ? { search: query, limit: 20 } : skipToken);
  const users = found.isError ? [] : (found.data ?? []).filter((u) => u.id !== viewerId);
  const loading = found.isFetching;
  return (
    <>
      <TextField
        label="Search users by name"
        value={search}
        onChange={(event) => setSearch(event.target.value)}
        autoFocus
        slotProps={{
          input: {
            startAdornment: (
              <InputAdornment position="start">
                <SearchIcon aria-hidden />
              </InputAdornment>
            ),
          },
        }}
      />
      <Box sx={{ border: 1, borderColor: 'divider', borderRadius: 1, maxHeight: 260, overflowY: 'auto' }}>
        {loading && users.length === 0 ? (
          <Box sx={{ p: 2, display: 'flex', justifyContent: 'center' }}>
            <DelayedCircularProgress size={24} aria-label="Loading users" />
          </Box>
        ) : users.length === 0 ? (
          <Typography sx={{ p: 2 }} color="text.secondary">
            No users found
          </Typography>
        ) : (
          <List dense aria-label="Users to share with" disablePadding>
            {users.map((user) => {
              const isSelected = selected?.id === user.id;
              return (
                <ListItem key={user.id} disablePadding>
                  <ListItemButton selected={isSelected} aria-pressed={isSelected} onClick={() => onSelect(user)}>
                    <ListItemText primary={`${user.firstname} ${user.lastname}`} secondary={user.email} />
                    <Chip size="small" label={roleLabel(user.role)} color={roleColors[user.role]} sx={{ ml: 1 }} />
                  </ListItemButton>
                </ListItem>
              );
            })}
          </List>
        )}
      </Box>
    </>
  );
}

/** The expiry in whole hours, as typed, and whether it is one the server takes. */
export function useShareHours(open: boolean) {
  const [hours, setHours] = useState(String(DEFAULT_SHARE_HOURS));
  useEffect(() => {
    if (open) setHours(String(DEFAULT_SHARE_HOURS));
  }, [open]);
  const value = Number(hours);
  const valid = Number.isInteger(value) && value >= 1 && value <= MAX_SHARE_HOURS;
  return { hours, setHours, value, valid };
}

export function ExpiryField({ hours, setHours, valid }: ReturnType<typeof useShareHours>) {
  return (
    <TextField
      label="Expires in (hours)"
      type="number"
      value={hours}
      onChange={(event) => setHours(event.target.value)}
      error={!valid}
      helperText={valid ? 'The server may cap this at its maximum.' : `Enter whole hours from 1 to ${MAX_SHARE_HOURS}.`}
      slotProps={{ htmlInput: { min: 1, max: MAX_SHARE_HOURS, step: 1 } }}
    />
  );
}

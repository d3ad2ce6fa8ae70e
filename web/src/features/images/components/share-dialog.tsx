import SearchIcon from '@mui/icons-material/Search';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Divider from '@mui/material/Divider';
import InputAdornment from '@mui/material/InputAdornment';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Image, RoleName, Share, ShareState, UserListItem } from '@medshare/contracts';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { roleLabel } from '../../../lib/roles';
import { toast, toastApiError } from '../../../lib/notify';
import { listShares, useRevokeShare } from '../api/image-shares';
import { searchUsers } from '../api/search-users';
import { useShareImage } from '../api/share-image';
import { IMAGES_TOAST } from '../utils/toast-options';
import { formatDateTime } from '../utils/format-date';

/** Spec §9: shares last 24 hours unless the sender says otherwise; the server caps the value. */
export const DEFAULT_SHARE_HOURS = 24;
const MAX_SHARE_HOURS = 8760;

type ShareDialogProps = {
  image: Image | null;
  viewerId: string;
  locale: string;
  timeZone: string;
  onClose: () => void;
  onShared: () => void;
};

const roleColors: Record<RoleName, 'primary' | 'secondary' | 'default'> = {
  patient: 'primary',
  healthProvider: 'secondary',
  admin: 'default',
};

const stateColors: Record<ShareState, 'warning' | 'success' | 'default' | 'error'> = {
  pending: 'warning',
  verified: 'success',
  expired: 'default',
  revoked: 'default',
  locked: 'error',
};

const live = (share: Share) => share.state === 'pending' || share.state === 'verified';

function SharesPanel({
  image,
  locale,
  timeZone,
  version,
}: {
  image: Image;
  locale: string;
  timeZone: string;
  version: number;
}) {
  const [shares, setShares] = useState<Share[] | null>(null);
  const [reload, setReload] = useState(0);
  const { mutate: revoke, isPending } = useRevokeShare();

  useEffect(() => {
    const controller = new AbortController();
    listShares(image.id, controller.signal)
      .then((result) => setShares(result.data))
      .catch(() => {
        if (!controller.signal.aborted) setShares([]);
      });
    return () => controller.abort();
  }, [image.id, version, reload]);

  async function onRevoke(share: Share) {
    try {
      const result = await revoke(share.id);
      toast.success(result.message ?? 'Share revoked', IMAGES_TOAST);
      setReload((n) => n + 1);
    } catch (error) {
      toastApiError(error, 'The share could not be revoked.', IMAGES_TOAST);
    }
  }

  return (
    <Box component="section" aria-labelledby="shares-heading">
      <Typography id="shares-heading" component="h3" variant="subtitle1" sx={{ fontWeight: 700, mb: 1 }}>
        Shares
      </Typography>
      {shares === null ? (
        <CircularProgress size={24} aria-label="Loading shares" />
      ) : shares.length === 0 ? (
        <Typography color="text.secondary">Not shared with anyone yet.</Typography>
      ) : (
        <List dense disablePadding aria-label="Shares of this image">
          {shares.map((share) => {
            const name = `${share.recipient.firstname} ${share.recipient.lastname}`;
            return (
              <ListItem
                key={share.id}
                disableGutters
                secondaryAction={
                  live(share) ? (
                    <Button
                      size="small"
                      color="error"
                      onClick={() => void onRevoke(share)}
                      disabled={isPending}
                      aria-label={`Revoke share with ${name}`}
                    >
                      Revoke
                    </Button>
                  ) : undefined
                }
                sx={{ pr: live(share) ? 10 : 0 }}
              >
                <ListItemText
                  primary={
                    <Box
                      component="span"
                      sx={{ display: 'inline-flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}
                    >
                      <span>{name}</span>
                      <Chip size="small" label={share.state} color={stateColors[share.state]} variant="outlined" />
                    </Box>
                  }
                  secondary={
                    share.expiresAt
                      ? `${roleLabel(share.recipient.role)} · ends ${formatDateTime(share.expiresAt, locale, timeZone)}`
                      : `${roleLabel(share.recipient.role)} · does not expire`
                  }
                />
              </ListItem>
            );
          })}
        </List>
      )}
    </Box>
  );
}

/** Share dialog (spec "View images"): users with a name search and a role badge, expiry, and the image's shares. */
export function ShareDialog({ image, viewerId, locale, timeZone, onClose, onShared }: ShareDialogProps) {
  const [search, setSearch] = useState('');
  const [users, setUsers] = useState<UserListItem[]>([]);
  const [loading, setLoading] = useState(false);
  const [selected, setSelected] = useState<UserListItem | null>(null);
  const [hours, setHours] = useState(String(DEFAULT_SHARE_HOURS));
  const [version, setVersion] = useState(0);
  const { mutate, isPending } = useShareImage();
  const fullScreen = useMediaQuery('(max-width:599.95px)');
  const open = image !== null;

  useEffect(() => {
    if (open) {
      setSearch('');
      setSelected(null);
      setHours(String(DEFAULT_SHARE_HOURS));
    }
  }, [open, image?.id]);

  const load = useCallback(
    (text: string, signal: AbortSignal) => {
      setLoading(true);
      searchUsers({ search: text, limit: 20 }, signal)
        .then((result) => setUsers(result.data.filter((u) => u.id !== viewerId)))
        .catch(() => {
          if (!signal.aborted) setUsers([]);
        })
        .finally(() => {
          if (!signal.aborted) setLoading(false);
        });
    },
    [viewerId],
  );

  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    const timer = window.setTimeout(() => load(search, controller.signal), 250);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [open, search, load]);

  const hoursNumber = Number(hours);
  const hoursValid = Number.isInteger(hoursNumber) && hoursNumber >= 1 && hoursNumber <= MAX_SHARE_HOURS;

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!image || !selected || !hoursValid) return;
    try {
      const result = await mutate({ imagemetadataId: image.id, createdfor: selected.id, expiresInHours: hoursNumber });
      toast.success(result.message ?? 'Image shared successfully', IMAGES_TOAST);
      setVersion((v) => v + 1);
      onClose();
      onShared();
    } catch (error) {
      toastApiError(error, 'The image could not be shared.', IMAGES_TOAST);
    }
  }

  return (
    <Dialog open={open} onClose={isPending ? undefined : onClose} fullWidth maxWidth="sm" fullScreen={fullScreen}>
      <form onSubmit={onSubmit} noValidate style={{ display: 'contents' }}>
        <DialogTitle>{`Share “${image?.caption ?? ''}”`}</DialogTitle>
        <DialogContent dividers sx={{ display: 'grid', gap: 2 }}>
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
                <CircularProgress size={24} aria-label="Loading users" />
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
                      <ListItemButton selected={isSelected} aria-pressed={isSelected} onClick={() => setSelected(user)}>
                        <ListItemText primary={`${user.firstname} ${user.lastname}`} secondary={user.email} />
                        <Chip size="small" label={roleLabel(user.role)} color={roleColors[user.role]} sx={{ ml: 1 }} />
                      </ListItemButton>
                    </ListItem>
                  );
                })}
              </List>
            )}
          </Box>
          <TextField
            label="Expires in (hours)"
            type="number"
            value={hours}
            onChange={(event) => setHours(event.target.value)}
            error={!hoursValid}
            helperText={
              hoursValid ? 'The server may cap this at its maximum.' : `Enter whole hours from 1 to ${MAX_SHARE_HOURS}.`
            }
            slotProps={{ htmlInput: { min: 1, max: MAX_SHARE_HOURS, step: 1 } }}
          />
          <Typography aria-live="polite">
            {selected ? `Share with ${selected.firstname} ${selected.lastname}` : 'Choose a user to share with.'}
          </Typography>
          <Divider />
          {image && <SharesPanel image={image} locale={locale} timeZone={timeZone} version={version} />}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={!selected || !hoursValid || isPending}>
            {isPending ? 'Sharing...' : 'Share'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Divider from '@mui/material/Divider';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Image, Share, UserListItem } from '@medshare/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { roleLabel } from '../../../lib/roles';
import { toast, toastApiError } from '../../../lib/notify';
import { useListSharesQuery, useRevokeShareMutation } from '../api/image-shares';
import { useShareImageMutation } from '../api/share-image';
import { IMAGES_TOAST } from '../utils/toast-options';
import { formatDateTime } from '../utils/format-date';
import { ExpiryField, RecipientPicker, isLiveShare as live, stateColors, useShareHours } from './recipient-picker';
import { PHONE_QUERY } from '../../../config/constants';

export { DEFAULT_SHARE_HOURS } from './recipient-picker';

type ShareDialogProps = {
  image: Image | null;
  viewerId: string;
  locale: string;
  timeZone: string;
  onClose: () => void;
  onShared: () => void;
};

function SharesPanel({ image, locale, timeZone }: { image: Image; locale: string; timeZone: string }) {
  // Shares and revokes invalidate this list (tag `Shares`/image id), so it refreshes by itself.
  // Recipients verify on their side: opening the dialog reads the shares again.
  const { data, isError } = useListSharesQuery(image.id, { refetchOnMountOrArgChange: true });
  const shares: Share[] | null = data ?? (isError ? [] : null);
  const [revoke, { isLoading: isPending }] = useRevokeShareMutation();

  async function onRevoke(share: Share) {
    try {
      const result = await revoke({ sharingId: share.id, imageId: image.id }).unwrap();
      toast.success(result.message ?? 'Share revoked', IMAGES_TOAST);
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
        <DelayedCircularProgress size={24} aria-label="Loading shares" />
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

/**
 * Share dialog (`docs/product.md` › View images): users with a name search and a role badge, expiry, and the
 * image's shares.
 */
export function ShareDialog({ image, viewerId, locale, timeZone, onClose, onShared }: ShareDialogProps) {
  const [selected, setSelected] = useState<UserListItem | null>(null);
  const [share, { isLoading: isPending }] = useShareImageMutation();
  const fullScreen = useMediaQuery(PHONE_QUERY);
  const open = image !== null;
  const expiry = useShareHours(open);

  useEffect(() => {
    if (open) setSelected(null);
  }, [open, image?.id]);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!image || !selected || !expiry.valid) return;
    try {
      const result = await share({
        imagemetadataId: image.id,
        createdfor: selected.id,
        expiresInHours: expiry.value,
      }).unwrap();
      toast.success(result.message ?? 'Image shared successfully', IMAGES_TOAST);
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
          <RecipientPicker open={open} viewerId={viewerId} selected={selected} onSelect={setSelected} />
          <ExpiryField {...expiry} />
          <Typography aria-live="polite">
            {selected ? `Share with ${selected.firstname} ${selected.lastname}` : 'Choose a user to share with.'}
          </Typography>
          <Divider />
          {image && <SharesPanel image={image} locale={locale} timeZone={timeZone} />}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={!selected || !expiry.valid || isPending}>
            {isPending ? 'Sharing...' : 'Share'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

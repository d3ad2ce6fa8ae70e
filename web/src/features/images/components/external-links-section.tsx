import LinkOffIcon from '@mui/icons-material/LinkOff';
import RefreshIcon from '@mui/icons-material/Refresh';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Typography from '@mui/material/Typography';
import type { ExternalShare, ExternalShareIssued, ExternalShareListState } from '@medshare/contracts/external-shares';
import { useState } from 'react';
import { toast, toastApiError } from '../../../lib/notify';
import {
  useListExternalSharesQuery,
  useReissueExternalShareMutation,
  useRevokeExternalShareMutation,
} from '../api/external-shares';
import { formatDateTime } from '../utils/format-date';
import { IMAGES_TOAST } from '../utils/toast-options';
import { IssuedCode } from './issued-code';

const stateChip: Record<ExternalShareListState, { label: string; color: 'success' | 'error' | 'warning' | 'default' }> =
  {
    active: { label: 'Active', color: 'success' },
    locked: { label: 'Locked', color: 'error' },
    paused: { label: 'Paused', color: 'warning' },
    expired: { label: 'Expired', color: 'default' },
    revoked: { label: 'Revoked', color: 'default' },
    ended: { label: 'Opens nothing now', color: 'default' },
  };

/**
 * A link can be revoked until it is revoked or expired: one that opens nothing now (or is paused) may
 * open again, when its sharer's record is shared with them anew (or their account is reactivated).
 * Its sharer may re-issue it while it is theirs to use.
 */
const live = (share: ExternalShare) => share.state !== 'revoked' && share.state !== 'expired';
const reissuable = (share: ExternalShare) => share.state === 'active' || share.state === 'locked';

/** The line under the caption: when the link ends (or ended), or why it opens nothing. */
function whenLine(share: ExternalShare, ends: string): string {
  switch (share.state) {
    case 'revoked':
      return `Revoked ${ends}`;
    case 'expired':
      return `Ended ${ends}`;
    case 'ended':
      return `Its images were deleted or are not the sharer’s to share now · Ends ${ends}`;
    case 'paused':
      return `Paused: the sharer’s account is deactivated · Ends ${ends}`;
    default:
      return `Ends ${ends}`;
  }
}

function what(share: ExternalShare): string {
  const n = `${share.imageCount} ${share.imageCount === 1 ? 'image' : 'images'}`;
  const kind = share.kind === 'study' ? `Study · ${n}` : 'Image';
  return [kind, share.deidentified ? 'de-identified' : null, share.viewOnly ? 'view only' : null]
    .filter(Boolean)
    .join(' · ');
}

type Props = {
  locale: string;
  timeZone: string;
  /** An administrator's view (image:view_all): every user's links, each naming its sharer. */
  everyone?: boolean;
  /** The viewer: only their own links can be re-issued (that shows the new code). */
  viewerId?: string | undefined;
};

/**
 * "Links you shared" on View images (`docs/product.md` › View images): every external share of the
 * caller with Revoke (confirmed) and Re-issue (the new code shown once). Shown once there is a link.
 * An administrator sees every user's links ("Links shared by everyone"), may revoke any, and re-issue
 * their own.
 */
export function ExternalLinksSection({ locale, timeZone, everyone = false, viewerId }: Props) {
  // Recipients open links (views) and links end by themselves: opening the page reads the list again.
  const { data } = useListExternalSharesQuery(everyone ? 'all' : undefined, { refetchOnMountOrArgChange: true });
  const [revoke, { isLoading: revoking }] = useRevokeExternalShareMutation();
  const [reissue, { isLoading: reissuing }] = useReissueExternalShareMutation();
  const [confirming, setConfirming] = useState<ExternalShare | null>(null);
  const [issued, setIssued] = useState<ExternalShareIssued | null>(null);
  const items = data?.items ?? [];
  if (items.length === 0) return null;
  const title = everyone ? 'Links shared by everyone' : 'Links you shared';
  const mine = (share: ExternalShare) => share.sharedBy.id === viewerId;

  async function onRevoke() {
    if (!confirming) return;
    try {
      const result = await revoke(confirming.id).unwrap();
      toast.success(result.message ?? 'Access revoked', IMAGES_TOAST);
      setConfirming(null);
    } catch (error) {
      toastApiError(error, 'The link could not be revoked.', IMAGES_TOAST);
    }
  }
  async function onReissue(share: ExternalShare) {
    try {
      const result = await reissue(share.id).unwrap();
      // Its dialog confirms, as for a new link.
      setIssued(result.data);
    } catch (error) {
      toastApiError(error, 'The link could not be re-issued.', IMAGES_TOAST);
    }
  }

  return (
    <Box component="section" aria-labelledby="section-links-you-shared" sx={{ mt: 4, mb: 4 }}>
      <Typography id="section-links-you-shared" component="h2" variant="h5" sx={{ mb: 1, fontWeight: 700 }}>
        {title}
      </Typography>
      <Typography color="text.secondary" variant="body2" sx={{ mb: 2 }}>
        {everyone
          ? 'Every link users sent to people without an account, newest first. Revoke one that should not stay open.'
          : 'People without an account open these links with the code you gave them.'}
      </Typography>
      <Box component="ul" aria-label={title} sx={{ p: 0, m: 0, display: 'grid', gap: 1 }}>
        {items.map((share) => {
          const chip = stateChip[share.state];
          const ends = formatDateTime(share.revokedAt ?? share.expiresAt, locale, timeZone);
          return (
            <Box
              component="li"
              key={share.id}
              aria-label={`Link to ${share.recipientEmail}: ${share.caption}`}
              sx={{
                listStyle: 'none',
                border: 1,
                borderColor: 'divider',
                borderRadius: 2,
                p: 1.5,
                display: 'flex',
                flexWrap: 'wrap',
                gap: 1,
                alignItems: 'center',
              }}
            >
              <Box sx={{ flex: '1 1 260px', minWidth: 0, display: 'grid', gap: 0.25 }}>
                <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
                  <Typography sx={{ fontWeight: 700, overflowWrap: 'anywhere' }}>{share.recipientEmail}</Typography>
                  <Chip size="small" variant="outlined" label={chip.label} color={chip.color} />
                </Box>
                <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
                  {`${share.caption} · ${what(share)}`}
                </Typography>
                {everyone && (
                  <Typography variant="body2" color="text.secondary">
                    {`Shared by ${mine(share) ? 'you' : `${share.sharedBy.firstname} ${share.sharedBy.lastname}`.trim()}`}
                  </Typography>
                )}
                <Typography variant="body2" color="text.secondary">
                  {`${whenLine(share, ends)} · ${share.views} ${share.views === 1 ? 'view' : 'views'}`}
                </Typography>
              </Box>
              {live(share) && (
                <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
                  {(!everyone || mine(share)) && reissuable(share) && (
                    <Button
                      size="small"
                      variant="outlined"
                      startIcon={<RefreshIcon />}
                      disabled={reissuing}
                      onClick={() => void onReissue(share)}
                      aria-label={`Re-issue link to ${share.recipientEmail}`}
                    >
                      Re-issue
                    </Button>
                  )}
                  <Button
                    size="small"
                    color="error"
                    variant="outlined"
                    startIcon={<LinkOffIcon />}
                    onClick={() => setConfirming(share)}
                    aria-label={`Revoke link to ${share.recipientEmail}`}
                  >
                    Revoke
                  </Button>
                </Box>
              )}
            </Box>
          );
        })}
      </Box>

      <Dialog open={confirming !== null} onClose={revoking ? undefined : () => setConfirming(null)} maxWidth="xs">
        <DialogTitle>Revoke this link?</DialogTitle>
        <DialogContent>
          <DialogContentText>
            {`${confirming?.recipientEmail ?? ''} can no longer open “${confirming?.caption ?? ''}”, from their next click on. This cannot be undone; you can share again.`}
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(null)} disabled={revoking} autoFocus>
            Cancel
          </Button>
          <Button color="error" variant="contained" onClick={() => void onRevoke()} disabled={revoking}>
            {revoking ? 'Revoking...' : 'Revoke'}
          </Button>
        </DialogActions>
      </Dialog>
      <Dialog open={issued !== null} onClose={() => setIssued(null)} fullWidth maxWidth="sm">
        <DialogTitle>New link sent</DialogTitle>
        <DialogContent dividers>
          {issued && <IssuedCode issued={issued} locale={locale} timeZone={timeZone} />}
        </DialogContent>
        <DialogActions>
          <Button variant="contained" onClick={() => setIssued(null)}>
            Done
          </Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}

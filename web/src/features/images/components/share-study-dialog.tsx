import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Divider from '@mui/material/Divider';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormHelperText from '@mui/material/FormHelperText';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { StudyShare, UserListItem } from '@medshare/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { roleLabel } from '../../../lib/roles';
import { toast, toastApiError } from '../../../lib/notify';
import { useRevokeStudyShareMutation, useShareStudyMutation, useStudySharesQuery } from '../api/study';
import { formatDateTime } from '../utils/format-date';
import { IMAGES_TOAST } from '../utils/toast-options';
import { ExpiryField, RecipientPicker, isLiveShare, stateColors, useShareHours } from './recipient-picker';
import { PHONE_QUERY } from '../../../config/constants';

/** What the dialog shares: a study the viewer may share (its UID is known to them). */
export type ShareableStudy = { studyUid: string; caption: string; seriesCount: number; instanceCount: number };

type ShareStudyDialogProps = {
  study: ShareableStudy | null;
  viewerId: string;
  locale: string;
  timeZone: string;
  onClose: () => void;
};

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function StudySharesPanel({ studyUid, locale, timeZone }: { studyUid: string; locale: string; timeZone: string }) {
  // Recipients verify on their side: opening the dialog reads the shares again.
  const { data, isError } = useStudySharesQuery(studyUid, { refetchOnMountOrArgChange: true });
  const shares: StudyShare[] | null = data ?? (isError ? [] : null);
  const [revoke, { isLoading: isPending }] = useRevokeStudyShareMutation();

  async function onRevoke(share: StudyShare) {
    try {
      const result = await revoke({ studyUid, id: share.id }).unwrap();
      toast.success(result.message ?? 'Study share revoked', IMAGES_TOAST);
    } catch (error) {
      toastApiError(error, 'The study share could not be revoked.', IMAGES_TOAST);
    }
  }

  return (
    <Box component="section" aria-labelledby="study-shares-heading">
      <Typography id="study-shares-heading" component="h3" variant="subtitle1" sx={{ fontWeight: 700, mb: 1 }}>
        Shares of this study
      </Typography>
      {shares === null ? (
        <DelayedCircularProgress size={24} aria-label="Loading shares" />
      ) : shares.length === 0 ? (
        <Typography color="text.secondary">Not shared with anyone yet.</Typography>
      ) : (
        <List dense disablePadding aria-label="Shares of this study">
          {shares.map((share) => {
            const name = `${share.recipient.firstname} ${share.recipient.lastname}`;
            const ends = share.expiresAt
              ? `ends ${formatDateTime(share.expiresAt, locale, timeZone)}`
              : 'does not expire';
            return (
              <ListItem
                key={share.id}
                disableGutters
                secondaryAction={
                  isLiveShare(share) ? (
                    <Button
                      size="small"
                      color="error"
                      onClick={() => void onRevoke(share)}
                      disabled={isPending}
                      aria-label={`Revoke study share with ${name}`}
                    >
                      Revoke
                    </Button>
                  ) : undefined
                }
                sx={{ pr: isLiveShare(share) ? 10 : 0 }}
              >
                <ListItemText
                  primary={
                    <Box
                      component="span"
                      sx={{ display: 'inline-flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}
                    >
                      <span>{name}</span>
                      <Chip size="small" label={share.state} color={stateColors[share.state]} variant="outlined" />
                      {share.deidentified && <Chip size="small" label="de-identified" variant="outlined" />}
                    </Box>
                  }
                  secondary={`${roleLabel(share.recipient.role)} · ${count(share.instanceCount, 'image', 'images')} · ${ends}`}
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
 * Share a whole study (`docs/product.md` › View images): the image Share dialog's user search and
 * expiry, a choice to share a de-identified copy, and the study's shares with Revoke. One sharing id
 * and one code reach the recipient for every image of the study.
 */
export function ShareStudyDialog({ study, viewerId, locale, timeZone, onClose }: ShareStudyDialogProps) {
  const [selected, setSelected] = useState<UserListItem | null>(null);
  const [deidentify, setDeidentify] = useState(false);
  const [share, { isLoading: isPending }] = useShareStudyMutation();
  const fullScreen = useMediaQuery(PHONE_QUERY);
  const open = study !== null;
  const expiry = useShareHours(open);

  useEffect(() => {
    if (open) {
      setSelected(null);
      setDeidentify(false);
    }
  }, [open, study?.studyUid]);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!study || !selected || !expiry.valid) return;
    try {
      const result = await share({
        studyUid: study.studyUid,
        body: { createdfor: selected.id, expiresInHours: expiry.value, ...(deidentify ? { deidentify: true } : {}) },
      }).unwrap();
      toast.success(result.message ?? 'Study shared successfully', IMAGES_TOAST);
      onClose();
    } catch (error) {
      toastApiError(error, 'The study could not be shared.', IMAGES_TOAST);
    }
  }

  return (
    <Dialog open={open} onClose={isPending ? undefined : onClose} fullWidth maxWidth="sm" fullScreen={fullScreen}>
      <form onSubmit={onSubmit} noValidate style={{ display: 'contents' }}>
        <DialogTitle>{`Share study “${study?.caption ?? ''}”`}</DialogTitle>
        <DialogContent dividers sx={{ display: 'grid', gap: 2 }}>
          {study && (
            <Typography color="text.secondary">
              {`${count(study.seriesCount, 'series', 'series')} · ${count(study.instanceCount, 'image', 'images')}: one sharing id and one code open them all.`}
            </Typography>
          )}
          <RecipientPicker open={open} viewerId={viewerId} selected={selected} onSelect={setSelected} />
          <ExpiryField {...expiry} />
          <Box>
            <FormControlLabel
              control={<Checkbox checked={deidentify} onChange={(event) => setDeidentify(event.target.checked)} />}
              label="Share a de-identified copy"
            />
            <FormHelperText sx={{ mt: 0 }} id="deidentify-help">
              Names, IDs, dates and UIDs removed or replaced (DICOM PS3.15 basic profile); images flagged with burned-in
              annotation cannot be shared this way.
            </FormHelperText>
          </Box>
          <Typography aria-live="polite">
            {selected ? `Share with ${selected.firstname} ${selected.lastname}` : 'Choose a user to share with.'}
          </Typography>
          <Divider />
          {study && <StudySharesPanel studyUid={study.studyUid} locale={locale} timeZone={timeZone} />}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={!selected || !expiry.valid || isPending}>
            {isPending ? 'Sharing...' : 'Share study'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import type { Image, StudySummary } from '@medshare/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { toast, toastApiError } from '../../../lib/notify';
import { useVerifyShareMutation } from '../api/verify-share';
import { IMAGES_TOAST } from '../utils/toast-options';

type VerifyDialogProps = {
  image: Image | null;
  /** A study card's Verify: one sharing id and code open every image of the study. */
  study?: StudySummary | null;
  /** A share mail's link whose image is not on this page of the list: only its sharing id is known. */
  linkedSharingId?: string | null;
  onClose: () => void;
  onVerified: () => void;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The sharing id (prefilled from the card) and the 6-digit code from the mail. */
export function VerifyDialog({ image, study = null, linkedSharingId = null, onClose, onVerified }: VerifyDialogProps) {
  const [sharingId, setSharingId] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [verify, { isLoading: isPending }] = useVerifyShareMutation();

  useEffect(() => {
    if (image || study || linkedSharingId) {
      setSharingId(image?.sharingId ?? study?.sharingId ?? linkedSharingId ?? '');
      setCode('');
      setError(null);
    }
  }, [image, study, linkedSharingId]);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const id = sharingId.trim();
    if (!UUID.test(id)) {
      setError('Enter the sharing id from the e-mail.');
      return;
    }
    if (!/^\d{6}$/.test(code)) {
      setError('Enter the 6-digit code from the e-mail.');
      return;
    }
    setError(null);
    try {
      const result = await verify({ sharingRequestId: id, verificationCode: code }).unwrap();
      toast.success(
        result.message ?? (study ? 'Study verified successfully' : 'Image verified successfully'),
        IMAGES_TOAST,
      );
      setSharingId('');
      setCode('');
      onClose();
      onVerified();
    } catch (failure) {
      // The original client only logged a failed verification; a toast tells the person too.
      console.error('Image verification failed');
      toastApiError(failure, 'Verification failed. Please try again.', IMAGES_TOAST);
    }
  }

  return (
    <Dialog
      open={image !== null || study !== null || linkedSharingId !== null}
      onClose={isPending ? undefined : onClose}
      fullWidth
      maxWidth="xs"
    >
      <form onSubmit={onSubmit} noValidate>
        <DialogTitle>{study ? 'Verify study' : 'Verify image'}</DialogTitle>
        <DialogContent>
          <DialogContentText sx={{ mb: 2 }}>
            {study
              ? 'Enter the study sharing id and the code from the e-mail you received: the one code opens every image of the study.'
              : 'Enter the image sharing id and the code from the e-mail you received.'}
          </DialogContentText>
          {(image ?? study) && (
            <DialogContentText sx={{ mb: 2, overflowWrap: 'anywhere' }}>
              {study ? 'Study' : 'Image'}: <strong>{(image ?? study)!.caption}</strong>
            </DialogContentText>
          )}
          <Stack spacing={2}>
            <TextField
              label={study ? 'Study sharing id' : 'Image sharing id'}
              value={sharingId}
              onChange={(event) => setSharingId(event.target.value)}
              required
              autoComplete="off"
              disabled={isPending}
            />
            <TextField
              label="Verification code"
              value={code}
              onChange={(event) => setCode(event.target.value.replace(/\D/g, '').slice(0, 6))}
              required
              autoComplete="one-time-code"
              disabled={isPending}
              autoFocus
              error={Boolean(error)}
              helperText={error ?? '6 digits'}
              slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 6 } }}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={isPending}>
            {isPending ? 'Verifying...' : 'Verify'}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { ExternalShareIssued } from '@medshare/contracts/external-shares';
import { skipToken } from '@reduxjs/toolkit/query/react';
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError } from '../../../lib/api-client';
import { fieldErrorInline } from '../../../lib/error-text';
import { toastApiError } from '../../../lib/notify';
import { useCreateExternalShareMutation, useListExternalSharesQuery } from '../api/external-shares';
import { IMAGES_TOAST } from '../utils/toast-options';
import { IssuedCode } from './issued-code';
import { PHONE_QUERY } from '../../../config/constants';

/** `docs/product.md` › View images, "Share by link": a link lasts 72 hours unless the sharer says otherwise. */
export const DEFAULT_LINK_HOURS = 72;

/** What a link shares: one image, or the sharer's images of one study. */
export type LinkTarget =
  | { kind: 'image'; imageId: string; caption: string; dicom: boolean }
  | { kind: 'study'; studyUid: string; caption: string };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type ExternalShareDialogProps = {
  target: LinkTarget | null;
  locale: string;
  timeZone: string;
  onClose: () => void;
};

/**
 * Share by link (`docs/product.md` › View images): a recipient without an account gets a mailed link;
 * the sharer gets the code to pass on by another channel.
 */
export function ExternalShareDialog({ target, locale, timeZone, onClose }: ExternalShareDialogProps) {
  const open = target !== null;
  // The form starts afresh for another target, not when the page hands in an equal one again.
  const targetKey = target ? (target.kind === 'image' ? target.imageId : target.studyUid) : null;
  const fullScreen = useMediaQuery(PHONE_QUERY);
  // The list answers the setting that caps a link's life.
  const { data: list } = useListExternalSharesQuery(open ? undefined : skipToken);
  const maxHours = list?.maxHours ?? DEFAULT_LINK_HOURS;
  const [create, { isLoading: isPending }] = useCreateExternalShareMutation();
  const [email, setEmail] = useState('');
  const [hours, setHours] = useState(String(DEFAULT_LINK_HOURS));
  const [viewOnly, setViewOnly] = useState(false);
  const [deidentify, setDeidentify] = useState(false);
  const [touched, setTouched] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [issued, setIssued] = useState<ExternalShareIssued | null>(null);

  useEffect(() => {
    if (!open) return;
    setEmail('');
    setViewOnly(false);
    setDeidentify(false);
    setTouched(false);
    setServerErrors({});
    setIssued(null);
  }, [open, targetKey]);
  useEffect(() => {
    if (open) setHours(String(Math.min(DEFAULT_LINK_HOURS, maxHours)));
  }, [open, targetKey, maxHours]);

  const hoursValue = Number(hours);
  const hoursValid = hours.trim() !== '' && Number.isInteger(hoursValue) && hoursValue >= 1 && hoursValue <= maxHours;
  const emailValid = EMAIL.test(email.trim());
  const emailError = serverErrors.recipientEmail ?? (touched && !emailValid ? 'Enter a valid e-mail address.' : '');
  const hoursError = serverErrors.expiresInHours ?? (hoursValid ? '' : `Enter whole hours from 1 to ${maxHours}.`);
  const canDeidentify = target?.kind === 'study' || (target?.kind === 'image' && target.dicom);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (!target || !emailValid || !hoursValid) return;
    setServerErrors({});
    try {
      const result = await create({
        ...(target.kind === 'image' ? { imageId: target.imageId } : { studyUid: target.studyUid }),
        recipientEmail: email.trim(),
        expiresInHours: hoursValue,
        viewOnly,
        deidentify: canDeidentify ? deidentify : false,
      }).unwrap();
      // The dialog itself confirms (a toast covered its Done button on a phone).
      setIssued(result.data);
    } catch (error) {
      if (error instanceof ApiError && error.errors.length > 0) {
        setServerErrors(Object.fromEntries(error.errors.map((item) => [item.field, fieldErrorInline(item)])));
      }
      toastApiError(error, 'The link could not be created.', IMAGES_TOAST);
    }
  }

  const title = target ? `Share “${target.caption}” by link` : '';
  return (
    <Dialog open={open} onClose={isPending ? undefined : onClose} fullWidth maxWidth="sm" fullScreen={fullScreen}>
      {issued ? (
        <>
          <DialogTitle>Link sent</DialogTitle>
          <DialogContent dividers>
            <IssuedCode issued={issued} locale={locale} timeZone={timeZone} />
          </DialogContent>
          <DialogActions>
            <Button variant="contained" onClick={onClose}>
              Done
            </Button>
          </DialogActions>
        </>
      ) : (
        <form onSubmit={onSubmit} noValidate style={{ display: 'contents' }}>
          <DialogTitle sx={{ overflowWrap: 'anywhere' }}>{title}</DialogTitle>
          <DialogContent dividers sx={{ display: 'grid', gap: 2, alignContent: 'start' }}>
            <Typography color="text.secondary">
              For someone without a MedShare account. They receive a link by e-mail; you receive a code to tell them by
              phone or SMS. The link alone opens nothing.
            </Typography>
            <TextField
              label="Recipient e-mail"
              type="email"
              autoComplete="off"
              value={email}
              onChange={(event) => {
                setEmail(event.target.value);
                setServerErrors(({ recipientEmail: _gone, ...rest }) => rest);
              }}
              onBlur={() => setTouched(true)}
              error={Boolean(emailError)}
              helperText={emailError || 'Only the link is mailed, never the code.'}
              autoFocus
              required
            />
            <TextField
              label="Expires in (hours)"
              type="number"
              value={hours}
              onChange={(event) => {
                setHours(event.target.value);
                setServerErrors(({ expiresInHours: _gone, ...rest }) => rest);
              }}
              error={Boolean(hoursError)}
              helperText={hoursError || `At most ${maxHours} hours.`}
              slotProps={{ htmlInput: { min: 1, max: maxHours, step: 1 } }}
            />
            <FormControlLabel
              control={<Checkbox checked={viewOnly} onChange={(event) => setViewOnly(event.target.checked)} />}
              label="View only (no download)"
            />
            {canDeidentify && (
              <FormControlLabel
                control={<Checkbox checked={deidentify} onChange={(event) => setDeidentify(event.target.checked)} />}
                label="Share a de-identified copy"
              />
            )}
          </DialogContent>
          <DialogActions>
            <Button onClick={onClose} disabled={isPending}>
              Cancel
            </Button>
            <Button type="submit" variant="contained" disabled={isPending}>
              {isPending ? 'Sending...' : 'Send link'}
            </Button>
          </DialogActions>
        </form>
      )}
    </Dialog>
  );
}

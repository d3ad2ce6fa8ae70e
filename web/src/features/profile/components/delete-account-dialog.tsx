import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { PasswordField } from '../../../components/form/password-field';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-client';
import { fieldErrorInline } from '../../../lib/error-text';
import { toast, toastApiError } from '../../../lib/notify';
import { clearSession } from '../../../lib/session';
import { persistor, useAppDispatch } from '../../../lib/store';
import { useDeleteAccountMutation } from '../api/delete-account';

type Props = { open: boolean; onClose: () => void };

/** Deleting the own account: says what happens, asks for the password, then signs out to '/'. */
export function DeleteAccountDialog({ open, onClose }: Props) {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [deleteAccount, { isLoading: isPending }] = useDeleteAccountMutation();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>();

  function close() {
    if (isPending) return;
    setPassword('');
    setError(undefined);
    onClose();
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!password) {
      setError('Password is required');
      return;
    }
    setError(undefined);
    try {
      const result = await deleteAccount({ password }).unwrap();
      toast.success(result.message ?? 'Your account has been deleted');
      dispatch(clearSession());
      await persistor.flush();
      navigate(paths.home, { replace: true });
    } catch (cause) {
      const fieldError = cause instanceof ApiError ? cause.errors.find((e) => e.field === 'password') : undefined;
      if (fieldError) setError(fieldErrorInline(fieldError));
      else toastApiError(cause, 'An error occurred. Please try again.');
    }
  }

  return (
    <Dialog
      open={open}
      onClose={close}
      fullWidth
      maxWidth="sm"
      aria-labelledby="delete-account-title"
      aria-describedby="delete-account-text"
    >
      <form noValidate onSubmit={(event) => void submit(event)}>
        <DialogTitle id="delete-account-title">Delete your account?</DialogTitle>
        <DialogContent>
          <DialogContentText id="delete-account-text" component="div">
            <p>
              You are signed out everywhere at once and cannot sign in again. Your name and personal details are removed
              from MedShare.
            </p>
            <p>
              Medical images and the audit trail are kept, because the hospital must retain health records and the
              record of who accessed them. Shares made to you are revoked. You may register again later with the same
              e-mail address.
            </p>
            <p>Enter your password to confirm.</p>
          </DialogContentText>
          <PasswordField
            autoFocus
            name="password"
            label="Password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            error={Boolean(error)}
            helperText={error}
            sx={{ mt: 1 }}
          />
        </DialogContent>
        <DialogActions sx={{ px: 3, pb: 2 }}>
          <Button onClick={close} disabled={isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" color="error" disabled={isPending}>
            Delete my account
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

type Props = { name: string | null; busy: boolean; onCancel: () => void; onConfirm: () => void };

/** Asks before an admin deletes an account; says what deleting keeps and what it removes. */
export function ConfirmDeleteDialog({ name, busy, onCancel, onConfirm }: Props) {
  return (
    <Dialog open={name !== null} onClose={busy ? undefined : onCancel} aria-labelledby="delete-user-title">
      <DialogTitle id="delete-user-title">Delete {name}?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          The account is closed at once and every session of it ends. Name and personal details are removed; the medical
          images and the audit trail are kept, as health records must be. This cannot be undone.
        </DialogContentText>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button variant="contained" color="error" onClick={onConfirm} disabled={busy}>
          Delete
        </Button>
      </DialogActions>
    </Dialog>
  );
}

import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import type { Image } from '@medshare/contracts';
import { toast, toastApiError } from '../../../lib/notify';
import { useDeleteImageMutation } from '../api/delete-image';
import { IMAGES_TOAST } from '../utils/toast-options';

type DeleteDialogProps = { image: Image | null; onClose: () => void; onDeleted: () => void };

export function DeleteDialog({ image, onClose, onDeleted }: DeleteDialogProps) {
  // The delete invalidates the image list (and the counts) wherever they are shown.
  const [deleteImage, { isLoading: isPending }] = useDeleteImageMutation();

  async function confirm() {
    if (!image) return;
    try {
      const result = await deleteImage(image.id).unwrap();
      toast.success(result.message ?? 'Image deleted successfully', IMAGES_TOAST);
      onClose();
      onDeleted();
    } catch (error) {
      toastApiError(error, 'The image could not be deleted.', IMAGES_TOAST);
    }
  }

  return (
    <Dialog open={image !== null} onClose={isPending ? undefined : onClose} maxWidth="xs" fullWidth>
      <DialogTitle>Delete image?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          {`“${image?.caption ?? ''}” will be deleted for everyone it was shared with. This cannot be undone.`}
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={isPending} autoFocus>
          Cancel
        </Button>
        <Button color="error" variant="contained" onClick={() => void confirm()} disabled={isPending}>
          {isPending ? 'Deleting...' : 'Delete'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

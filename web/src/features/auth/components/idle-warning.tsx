import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { countdown } from '../utils/session-watch-state';

type IdleWarningProps = { secondsLeft: number; onStay: () => void; onLogout: () => void };

/**
 * The last minute before the idle limit (session-watch.tsx). Its own chunk: most sessions never show
 * it, and the signed-in frame loads on every page. Closing it any way but Log out is staying. The page
 * behind is blurred: whoever passes an unattended screen in its last minute reads nothing of it.
 */
export default function IdleWarning({ secondsLeft, onStay, onLogout }: IdleWarningProps) {
  return (
    <Dialog
      open
      onClose={onStay}
      aria-labelledby="idle-warning-title"
      aria-describedby="idle-warning-text"
      slotProps={{ backdrop: { sx: { backdropFilter: 'blur(14px)', bgcolor: 'rgba(15, 23, 42, 0.55)' } } }}
    >
      <DialogTitle id="idle-warning-title">Are you still there?</DialogTitle>
      <DialogContent>
        <DialogContentText id="idle-warning-text">
          To keep patients' data private, you will be logged out in <strong>{countdown(secondsLeft)}</strong> because
          there has been no activity.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onLogout}>Log out</Button>
        <Button variant="contained" onClick={onStay} autoFocus>
          Stay logged in
        </Button>
      </DialogActions>
    </Dialog>
  );
}

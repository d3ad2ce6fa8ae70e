import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { MESSAGE_MAX_LENGTH } from '@medshare/contracts/constants';
import { useState } from 'react';
import { isSubmitKey } from '../../../components/form/submit-key';
import { roleLabel } from '../../../lib/roles';
import { AvatarInitials } from './avatar-initials';
import type { Partner } from './chat-thread';
import { MessagesTexts } from './texts';

type SendMessageDialogProps = {
  recipient: Partner | null;
  sending: boolean;
  onClose: () => void;
  onSend: (content: string) => Promise<boolean>;
  /** Opens the thread with this person without sending anything yet. */
  onOpenChat: () => void;
  fullScreen?: boolean;
};

/** 'Send Message': a first message to the person picked in 'Select User to Chat'. */
export function SendMessageDialog({
  recipient,
  sending,
  onClose,
  onSend,
  onOpenChat,
  fullScreen,
}: SendMessageDialogProps) {
  const [draft, setDraft] = useState('');
  const canSend = draft.trim().length > 0 && !sending;

  async function submit() {
    if (!canSend) return;
    if (await onSend(draft.trim())) setDraft('');
  }

  return (
    <Dialog
      open={recipient !== null}
      onClose={onClose}
      fullWidth
      maxWidth="sm"
      fullScreen={fullScreen}
      aria-labelledby="send-message-title"
      slotProps={{ transition: { onExited: () => setDraft('') } }}
    >
      <Box
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <DialogTitle id="send-message-title">{MessagesTexts.sendMessageTitle}</DialogTitle>
        <DialogContent dividers>
          {recipient && (
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mb: 2 }}>
              <AvatarInitials
                firstname={recipient.firstname}
                lastname={recipient.lastname}
                role={recipient.role}
                size={36}
              />
              <Box>
                <Typography sx={{ fontWeight: 600 }}>
                  To: {recipient.firstname} {recipient.lastname}
                </Typography>
                <Typography sx={{ fontSize: 13, color: 'text.secondary' }}>{roleLabel(recipient.role)}</Typography>
              </Box>
            </Box>
          )}
          <TextField
            autoFocus
            multiline
            minRows={3}
            maxRows={8}
            label="Message"
            placeholder={MessagesTexts.inputPlaceholder}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (isSubmitKey(e)) {
                e.preventDefault();
                void submit();
              }
            }}
            helperText="Enter to send, Shift+Enter for a new line"
            slotProps={{ htmlInput: { maxLength: MESSAGE_MAX_LENGTH } }}
          />
        </DialogContent>
        <DialogActions sx={{ flexWrap: 'wrap', gap: 1 }}>
          <Button onClick={onOpenChat} sx={{ mr: 'auto' }}>
            Open chat
          </Button>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="contained" disabled={!canSend}>
            {sending ? 'Sending…' : 'Send'}
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}

import SendIcon from '@mui/icons-material/Send';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import TextField from '@mui/material/TextField';
import { MESSAGE_MAX_LENGTH } from '@medshare/contracts/constants';
import { useState } from 'react';
import { isSubmitKey } from '../../../components/form/submit-key';
import { MessagesTexts } from './texts';

type ComposerProps = {
  /** Resolves true when the message was sent (the input is then cleared). */
  onSend: (content: string) => Promise<boolean>;
  sending: boolean;
  recipientName: string;
};

/** The thread's input: 'Type a message...' and a send button; blank messages are never sent. */
export function MessageComposer({ onSend, sending, recipientName }: ComposerProps) {
  const [draft, setDraft] = useState('');
  const canSend = draft.trim().length > 0 && !sending;
  const nearLimit = draft.length > MESSAGE_MAX_LENGTH - 500;

  async function submit() {
    if (!canSend) return;
    if (await onSend(draft.trim())) setDraft('');
  }

  return (
    <Box
      component="form"
      aria-label={`Send a message to ${recipientName}`}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      sx={{
        display: 'flex',
        alignItems: 'flex-end',
        gap: 1,
        p: 1.5,
        borderTop: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
      }}
    >
      <TextField
        multiline
        maxRows={5}
        size="small"
        value={draft}
        placeholder={MessagesTexts.inputPlaceholder}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (isSubmitKey(e)) {
            e.preventDefault();
            void submit();
          }
        }}
        helperText={nearLimit ? `${draft.length} / ${MESSAGE_MAX_LENGTH}` : undefined}
        slotProps={{ htmlInput: { 'aria-label': 'Message', maxLength: MESSAGE_MAX_LENGTH } }}
        sx={{ '& .MuiOutlinedInput-root': { borderRadius: 3, bgcolor: 'background.default' } }}
      />
      <IconButton
        type="submit"
        color="primary"
        aria-label={MessagesTexts.send}
        disabled={!canSend}
        sx={{
          bgcolor: 'primary.main',
          color: 'primary.contrastText',
          width: 42,
          height: 42,
          mb: nearLimit ? 2.75 : 0,
          '&:hover': { bgcolor: 'primary.dark' },
          '&.Mui-disabled': { bgcolor: 'action.disabledBackground' },
        }}
      >
        <SendIcon fontSize="small" />
      </IconButton>
    </Box>
  );
}

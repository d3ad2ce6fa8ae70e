import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import type { ExternalShareIssued } from '@medshare/contracts/external-shares';
import { useState } from 'react';
import { toast } from '../../../lib/notify';
import { formatDateTime } from '../utils/format-date';
import { IMAGES_TOAST } from '../utils/toast-options';

/**
 * The code of a new or re-issued link, shown this once (the server keeps only its hash): large, with
 * Copy, and how to pass it on — never by the mail that carries the link.
 */
export function IssuedCode({
  issued,
  locale,
  timeZone,
}: {
  issued: ExternalShareIssued;
  locale: string;
  timeZone: string;
}) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(issued.code);
      setCopied(true);
    } catch {
      toast.error('The code could not be copied: write it down instead.', IMAGES_TOAST);
    }
  }
  return (
    <Box sx={{ display: 'grid', gap: 1.5, justifyItems: 'start' }}>
      <Typography>{`A link was sent to ${issued.share.recipientEmail}. The link alone opens nothing: they also need this code.`}</Typography>
      <Box
        sx={{
          display: 'flex',
          alignItems: 'center',
          gap: 2,
          flexWrap: 'wrap',
          p: 2,
          border: 2,
          borderColor: 'primary.main',
          borderRadius: 2,
          width: '100%',
          justifyContent: 'center',
        }}
      >
        <Typography
          component="output"
          aria-label="Code for the recipient"
          sx={{ fontFamily: 'monospace', fontSize: { xs: 36, sm: 44 }, fontWeight: 700, letterSpacing: '0.2em' }}
        >
          {issued.code}
        </Typography>
        <Button variant="outlined" startIcon={<ContentCopyIcon />} onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy code'}
        </Button>
      </Box>
      <Alert severity="info" sx={{ width: '100%', boxSizing: 'border-box' }}>
        Tell the recipient this code by phone or text message (SMS), not by e-mail. It is shown only now; if it is lost,
        re-issue the link from “Links you shared”.
      </Alert>
      <Typography>{`Access ends ${formatDateTime(issued.share.expiresAt, locale, timeZone)}.`}</Typography>
    </Box>
  );
}

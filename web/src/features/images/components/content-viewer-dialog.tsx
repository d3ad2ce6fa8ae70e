import CloseIcon from '@mui/icons-material/Close';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogTitle from '@mui/material/DialogTitle';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { Image } from '@medshare/contracts';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { PictureViewer } from '../../../components/ui/picture-viewer';
import { useBlobUrl } from '../hooks/use-blob-url';
import { contentKind } from '../utils/card-rules';

type ContentViewerDialogProps = { image: Image | null; onClose: () => void };

/** Full-size view: pictures with zoom and pan, PDFs in the browser's own viewer; both from blob URLs. */
export function ContentViewerDialog({ image, onClose }: ContentViewerDialogProps) {
  const blob = useBlobUrl(image?.image_url ?? null);
  const kind = image ? contentKind(image.contentType) : 'other';

  return (
    <Dialog
      open={image !== null}
      onClose={onClose}
      fullScreen
      slotProps={{ paper: { sx: { display: 'flex', flexDirection: 'column' } } }}
    >
      <Stack direction="row" sx={{ alignItems: 'center', borderBottom: 1, borderColor: 'divider', pr: 1 }}>
        <DialogTitle sx={{ flexGrow: 1, overflowWrap: 'anywhere', py: 1.5 }}>{image?.caption}</DialogTitle>
        {kind === 'pdf' && blob.url && (
          <Button href={blob.url} target="_blank" rel="noopener" startIcon={<OpenInNewIcon />} sx={{ mr: 1 }}>
            Open in new tab
          </Button>
        )}
        <IconButton aria-label="Close viewer" onClick={onClose}>
          <CloseIcon />
        </IconButton>
      </Stack>
      {blob.loading && (
        <Box sx={{ flexGrow: 1, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
          <DelayedCircularProgress aria-label="Loading image" />
        </Box>
      )}
      {blob.error && (
        <Typography role="alert" sx={{ p: 3 }}>
          The file could not be loaded. Your access may have ended; reload the list.
        </Typography>
      )}
      {blob.url && image && kind === 'picture' && (
        <PictureViewer key={image.id} url={blob.url} caption={image.caption} />
      )}
      {blob.url && image && kind === 'pdf' && (
        <Box
          component="iframe"
          src={blob.url}
          title={`PDF: ${image.caption}`}
          sx={{ flexGrow: 1, border: 0, width: '100%', minHeight: 0 }}
        />
      )}
    </Dialog>
  );
}

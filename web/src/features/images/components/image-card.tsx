import DeleteIcon from '@mui/icons-material/Delete';
import DownloadIcon from '@mui/icons-material/Download';
import AddLinkIcon from '@mui/icons-material/AddLink';
import HourglassEmptyIcon from '@mui/icons-material/HourglassEmpty';
import LockIcon from '@mui/icons-material/Lock';
import PictureAsPdfIcon from '@mui/icons-material/PictureAsPdf';
import PsychologyIcon from '@mui/icons-material/Psychology';
import ShareIcon from '@mui/icons-material/Share';
import VerifiedUserIcon from '@mui/icons-material/VerifiedUser';
import VisibilityIcon from '@mui/icons-material/Visibility';
import ViewInArIcon from '@mui/icons-material/ViewInAr';
import BrokenImageIcon from '@mui/icons-material/BrokenImage';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Typography from '@mui/material/Typography';
import type { Image } from '@medshare/contracts';
import { memo, type ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { useBlobUrl } from '../hooks/use-blob-url';
import { cardActions, cardDisplay, contentKind, mayShareByLink, previewPath, type Viewer } from '../utils/card-rules';
import { formatDateTime } from '../utils/format-date';

export type CardHandlers = {
  onShare: (image: Image) => void;
  /** Set where the page offers Share by link (`docs/product.md` › View images). */
  onShareByLink?: (image: Image) => void;
  onVerify: (image: Image) => void;
  onDelete: (image: Image) => void;
  onView: (image: Image) => void;
  onDownload: (image: Image) => void;
};

type ImageCardProps = CardHandlers & {
  image: Image;
  viewer: Viewer;
  locale: string;
  timeZone: string;
  aiPath: string;
  /** Set only when a DICOM viewer route exists; then a DICOM card's View opens it. */
  dicomPath?: string;
};

const PREVIEW_HEIGHT = 180;

function Placeholder({ icon, text, tone = 'text.secondary' }: { icon: ReactNode; text: string; tone?: string }) {
  return (
    <Box
      sx={{
        height: PREVIEW_HEIGHT,
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 1,
        bgcolor: 'action.hover',
        color: tone,
        px: 2,
        textAlign: 'center',
      }}
    >
      {icon}
      <Typography sx={{ fontWeight: 600, color: tone }}>{text}</Typography>
    </Box>
  );
}

function Thumbnail({ image, viewer }: { image: Image; viewer: Viewer }) {
  const path = previewPath(image, viewer);
  const blob = useBlobUrl(path);
  const kind = contentKind(image.contentType);

  if (kind === 'picture' && image.thumbnailStatus === 'pending' && !path) {
    return <Placeholder icon={<DelayedCircularProgress size={28} aria-hidden />} text="Preparing preview…" />;
  }
  if (path && blob.url) {
    // Transparent photos' thumbnails are laid on this grey (PREVIEW_BACKGROUND, server/src/modules/images/thumbnails.ts).
    return (
      <Box sx={{ height: PREVIEW_HEIGHT, bgcolor: 'grey.900', display: 'flex', justifyContent: 'center' }}>
        <Box
          component="img"
          src={blob.url}
          alt={`Preview of ${image.caption}`}
          sx={{ height: '100%', maxWidth: '100%', objectFit: 'contain' }}
        />
      </Box>
    );
  }
  if (path && blob.loading)
    return <Placeholder icon={<DelayedCircularProgress size={28} aria-hidden />} text="Loading…" />;
  if (kind === 'pdf')
    return (
      <Placeholder icon={<PictureAsPdfIcon sx={{ fontSize: 56 }} color="error" aria-hidden />} text="PDF document" />
    );
  if (kind === 'dicom')
    return <Placeholder icon={<ViewInArIcon sx={{ fontSize: 56 }} color="primary" aria-hidden />} text="DICOM image" />;
  if (kind === 'picture')
    return <Placeholder icon={<BrokenImageIcon sx={{ fontSize: 48 }} aria-hidden />} text="Preview not available" />;
  return (
    <Placeholder
      icon={<BrokenImageIcon sx={{ fontSize: 48 }} aria-hidden />}
      text={`Unsupported file type: ${image.contentType}`}
    />
  );
}

const stateTexts = {
  'not-verified': { text: 'Image not Verified', icon: <LockIcon sx={{ fontSize: 44 }} aria-hidden /> },
  expired: { text: 'This share has expired', icon: <HourglassEmptyIcon sx={{ fontSize: 44 }} aria-hidden /> },
  revoked: { text: 'This share was revoked', icon: <LockIcon sx={{ fontSize: 44 }} aria-hidden /> },
  locked: { text: 'Locked after too many wrong codes', icon: <LockIcon sx={{ fontSize: 44 }} aria-hidden /> },
} as const;

const fullName = (u: { firstname: string; lastname: string }) => `${u.firstname} ${u.lastname}`.trim() || 'N/A';

/**
 * Memoised: the page re-renders as each of its reads answers (lists, settings, the signed-in user),
 * and a card changes only with its own image; on a phone each needless pass over the cards cost tens
 * of milliseconds of blocked main thread. The page passes stable handlers and viewer for this.
 */
export const ImageCard = memo(function ImageCard(props: ImageCardProps) {
  const { image, viewer, locale, timeZone, aiPath, dicomPath } = props;
  const display = cardDisplay(image, viewer);
  const actions = cardActions(image, viewer);
  const kind = contentKind(image.contentType);
  const titleId = `image-${image.id}-caption`;
  // DICOM opens only in the DICOM viewer; without that route the card offers Download alone.
  const canOpen = actions.view && (kind === 'picture' || kind === 'pdf' || (kind === 'dicom' && Boolean(dicomPath)));

  return (
    <Card
      component="article"
      aria-labelledby={titleId}
      variant="outlined"
      sx={{ display: 'flex', flexDirection: 'column', height: '100%' }}
    >
      {display.kind === 'content' ? (
        <Thumbnail image={image} viewer={viewer} />
      ) : (
        <Placeholder icon={stateTexts[display.kind].icon} text={stateTexts[display.kind].text} tone="warning.dark" />
      )}
      {/* One column no wider than the card, and long names broken anywhere: an unbroken patient name
          once widened the column past the card's edge and pushed Delete out of sight. */}
      <CardContent
        sx={{ flexGrow: 1, display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 0.5, overflowWrap: 'anywhere' }}
      >
        {/* Download and Delete sit beside the caption: on the button row they wrapped onto a line of their own. */}
        <Box sx={{ display: 'flex', alignItems: 'flex-start', gap: 1 }}>
          <Typography
            id={titleId}
            component="h3"
            variant="subtitle1"
            sx={{ fontWeight: 700, overflowWrap: 'anywhere', flexGrow: 1, minWidth: 0, pt: 0.5 }}
          >
            {image.caption}
          </Typography>
          <Box sx={{ display: 'flex', flexShrink: 0, mr: -1, mt: -0.25 }}>
            {/* With the icons, not the buttons: a fourth button wrapped the row at 1280 px (issue 17 item 9).
                Their hints are CSS (`data-hint`, index.css), not MUI Tooltips: eighteen Tooltips re-rendered
                every card once more right after mounting (docs/architecture.md › Frontend, "Start-up"). */}
            {props.onShareByLink && mayShareByLink(image, viewer) && (
              <IconButton
                size="small"
                aria-label="Share by link"
                data-hint="Share by link"
                onClick={() => props.onShareByLink?.(image)}
              >
                <AddLinkIcon />
              </IconButton>
            )}
            {actions.download && (
              <IconButton
                size="small"
                aria-label={`Download ${image.caption}`}
                data-hint="Download"
                onClick={() => props.onDownload(image)}
              >
                <DownloadIcon />
              </IconButton>
            )}
            {actions.delete && (
              <IconButton
                size="small"
                color="error"
                aria-label={`Delete ${image.caption}`}
                data-hint="Delete"
                onClick={() => props.onDelete(image)}
              >
                <DeleteIcon />
              </IconButton>
            )}
          </Box>
        </Box>
        <Typography variant="body2" color="text.secondary">
          {formatDateTime(image.createdAt, locale, timeZone)}
        </Typography>
        <Typography variant="body2">
          <strong>Patient:</strong> {image.patient ? fullName(image.patient) : 'N/A'}
        </Typography>
        <Typography variant="body2">
          <strong>Shared by:</strong> {fullName(image.sharedBy)}
        </Typography>
        {image.expiresAt && display.kind !== 'expired' && (
          <Typography variant="body2" color="text.secondary">
            {`Share ends ${formatDateTime(image.expiresAt, locale, timeZone)}`}
          </Typography>
        )}
        {image.isShared && image.isVerified && image.accessState === 'verified' && (
          <Box>
            <Chip size="small" color="success" variant="outlined" icon={<VerifiedUserIcon />} label="Verified" />
          </Box>
        )}
      </CardContent>
      <CardActions sx={{ px: 1.5, pb: 1.5 }}>
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, minWidth: 0 }}>
          {canOpen &&
            (kind === 'dicom' && dicomPath ? (
              <Button
                size="small"
                variant="contained"
                startIcon={<VisibilityIcon />}
                component={RouterLink}
                to={dicomPath}
              >
                View
              </Button>
            ) : (
              <Button
                size="small"
                variant="contained"
                startIcon={<VisibilityIcon />}
                onClick={() => props.onView(image)}
              >
                View
              </Button>
            ))}
          {actions.share && (
            <Button size="small" variant="outlined" startIcon={<ShareIcon />} onClick={() => props.onShare(image)}>
              Share
            </Button>
          )}
          {actions.verify && (
            <Button
              size="small"
              variant="contained"
              color="secondary"
              startIcon={<VerifiedUserIcon />}
              onClick={() => props.onVerify(image)}
            >
              Verify
            </Button>
          )}
          {actions.ai && (
            <Button size="small" variant="outlined" startIcon={<PsychologyIcon />} component={RouterLink} to={aiPath}>
              Ai
            </Button>
          )}
        </Box>
      </CardActions>
    </Card>
  );
});

import HourglassEmptyIcon from '@mui/icons-material/HourglassEmpty';
import LockIcon from '@mui/icons-material/Lock';
import ShareIcon from '@mui/icons-material/Share';
import VerifiedUserIcon from '@mui/icons-material/VerifiedUser';
import ViewInArIcon from '@mui/icons-material/ViewInAr';
import VisibilityIcon from '@mui/icons-material/Visibility';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import type { StudySummary } from '@medshare/contracts';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { formatCalendarDate } from '../../../lib/calendar-date';
import { useBlobUrl } from '../hooks/use-blob-url';
import type { Viewer } from '../utils/card-rules';
import { formatDateTime } from '../utils/format-date';
import { studyActions, studyCounts, studyDisplay } from '../utils/study-rules';

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

const stateTexts = {
  'not-verified': { text: 'Study not Verified', icon: <LockIcon sx={{ fontSize: 44 }} aria-hidden /> },
  expired: { text: 'This share has expired', icon: <HourglassEmptyIcon sx={{ fontSize: 44 }} aria-hidden /> },
  revoked: { text: 'This share was revoked', icon: <LockIcon sx={{ fontSize: 44 }} aria-hidden /> },
  locked: { text: 'Locked after too many wrong codes', icon: <LockIcon sx={{ fontSize: 44 }} aria-hidden /> },
} as const;

function StudyThumbnail({ study }: { study: StudySummary }) {
  const blob = useBlobUrl(study.thumbnailUrl);
  if (study.thumbnailUrl && blob.url)
    return (
      <Box sx={{ height: PREVIEW_HEIGHT, bgcolor: 'grey.900', display: 'flex', justifyContent: 'center' }}>
        <Box
          component="img"
          src={blob.url}
          alt={`Preview of ${study.caption}`}
          sx={{ height: '100%', maxWidth: '100%', objectFit: 'contain' }}
        />
      </Box>
    );
  if (study.thumbnailUrl && blob.loading)
    return <Placeholder icon={<DelayedCircularProgress size={28} aria-hidden />} text="Loading…" />;
  return <Placeholder icon={<ViewInArIcon sx={{ fontSize: 56 }} color="primary" aria-hidden />} text="DICOM study" />;
}

const fullName = (u: { firstname: string; lastname: string }) => `${u.firstname} ${u.lastname}`.trim() || 'N/A';

/** 'CT · 19 January 2004': what kind of study and when, as the card shows it before and after the code. */
export function studyHeadline(study: Pick<StudySummary, 'modalities' | 'studyDate'>, locale: string): string {
  const date = formatCalendarDate(study.studyDate, locale);
  return [study.modalities.join(', ') || 'DICOM', date].filter(Boolean).join(' · ');
}

type StudyCardProps = {
  study: StudySummary;
  viewer: Viewer;
  locale: string;
  timeZone: string;
  studyPath: (studyUid: string) => string;
  onShare: (study: StudySummary) => void;
  onVerify: (study: StudySummary) => void;
};

/** One study on View Images (`docs/product.md` › View images): its series and images behind one card. */
export function StudyCard({ study, viewer, locale, timeZone, studyPath, onShare, onVerify }: StudyCardProps) {
  const display = studyDisplay(study);
  const actions = studyActions(study, viewer);
  const titleId = `study-${study.sharingId ?? study.studyUid ?? 'own'}-caption`;
  return (
    <Card
      component="article"
      aria-labelledby={titleId}
      variant="outlined"
      sx={{ display: 'flex', flexDirection: 'column', height: '100%' }}
    >
      {display === 'content' ? (
        <StudyThumbnail study={study} />
      ) : (
        <Placeholder icon={stateTexts[display].icon} text={stateTexts[display].text} tone="warning.dark" />
      )}
      <CardContent
        sx={{ flexGrow: 1, display: 'grid', gridTemplateColumns: 'minmax(0, 1fr)', gap: 0.5, overflowWrap: 'anywhere' }}
      >
        <Typography
          id={titleId}
          component="h3"
          variant="subtitle1"
          sx={{ fontWeight: 700, overflowWrap: 'anywhere', pt: 0.5 }}
        >
          {study.caption}
        </Typography>
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {studyHeadline(study, locale)}
        </Typography>
        {study.description && (
          <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
            {study.description}
          </Typography>
        )}
        <Typography variant="body2">{studyCounts(study)}</Typography>
        <Typography variant="body2" color="text.secondary">
          {formatDateTime(study.createdAt, locale, timeZone)}
        </Typography>
        <Typography variant="body2">
          <strong>Patient:</strong> {study.patient ? fullName(study.patient) : 'N/A'}
        </Typography>
        <Typography variant="body2">
          <strong>Shared by:</strong> {fullName(study.sharedBy)}
        </Typography>
        {study.expiresAt && display !== 'expired' && (
          <Typography variant="body2" color="text.secondary">
            {`Share ends ${formatDateTime(study.expiresAt, locale, timeZone)}`}
          </Typography>
        )}
        <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap' }}>
          <Chip size="small" label="Study" color="primary" variant="outlined" />
          {study.deidentified && <Chip size="small" label="De-identified" variant="outlined" />}
          {study.isShared && study.accessState === 'verified' && (
            <Chip size="small" color="success" variant="outlined" icon={<VerifiedUserIcon />} label="Verified" />
          )}
        </Box>
      </CardContent>
      <CardActions sx={{ px: 1.5, pb: 1.5 }}>
        <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5, minWidth: 0 }}>
          {actions.open && study.studyUid && (
            <Button
              size="small"
              variant="contained"
              startIcon={<VisibilityIcon />}
              component={RouterLink}
              to={studyPath(study.studyUid)}
              aria-label={`Open study ${study.caption}`}
            >
              Open
            </Button>
          )}
          {actions.share && (
            <Button size="small" variant="outlined" startIcon={<ShareIcon />} onClick={() => onShare(study)}>
              Share
            </Button>
          )}
          {actions.verify && (
            <Button
              size="small"
              variant="contained"
              color="secondary"
              startIcon={<VerifiedUserIcon />}
              onClick={() => onVerify(study)}
            >
              Verify
            </Button>
          )}
        </Box>
      </CardActions>
    </Card>
  );
}

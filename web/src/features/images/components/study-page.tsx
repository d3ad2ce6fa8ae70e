import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import AddLinkIcon from '@mui/icons-material/AddLink';
import ShareIcon from '@mui/icons-material/Share';
import ViewInArIcon from '@mui/icons-material/ViewInAr';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActionArea from '@mui/material/CardActionArea';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import type { StudyDetail, StudySeries } from '@medshare/contracts';
import { useState } from 'react';
import { Link as RouterLink, generatePath } from 'react-router';
import { DelayedCircularProgress, DelayedLinearProgress } from '../../../components/ui/delayed-progress';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-client';
import { usePublicSettings } from '../../../lib/public-settings';
import { selectUser } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { site } from '../../../config/site';
import { useStudyQuery } from '../api/study';
import { useBlobUrl } from '../hooks/use-blob-url';
import { formatDateTime } from '../utils/format-date';
import { studyActions, studyCounts, studyMayShareByLink } from '../utils/study-rules';
import { ExternalShareDialog } from './external-share-dialog';
import { ShareStudyDialog } from './share-study-dialog';
import { studyHeadline } from './study-card';

const THUMB_HEIGHT = 160;

/** Where a series opens: the stack viewer's route (`paths.series`). */
export const seriesPath = (studyUid: string, seriesUid: string) => generatePath(paths.series, { studyUid, seriesUid });

function SeriesThumbnail({ series }: { series: StudySeries }) {
  const blob = useBlobUrl(series.thumbnailUrl);
  return (
    <Box
      sx={{
        height: THUMB_HEIGHT,
        bgcolor: 'grey.900',
        color: 'grey.300',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
      }}
    >
      {blob.url ? (
        <Box component="img" src={blob.url} alt="" sx={{ height: '100%', maxWidth: '100%', objectFit: 'contain' }} />
      ) : blob.loading ? (
        <DelayedCircularProgress size={24} aria-hidden />
      ) : (
        <ViewInArIcon sx={{ fontSize: 48 }} aria-hidden />
      )}
    </Box>
  );
}

const seriesTitle = (series: StudySeries) =>
  [series.number !== null ? `Series ${series.number}` : 'Series', series.description].filter(Boolean).join(': ');
const images = (n: number) => `${n} ${n === 1 ? 'image' : 'images'}`;

function SeriesCard({ studyUid, series }: { studyUid: string; series: StudySeries }) {
  const title = seriesTitle(series);
  return (
    <Card component="li" variant="outlined" sx={{ listStyle: 'none' }}>
      <CardActionArea
        component={RouterLink}
        to={seriesPath(studyUid, series.seriesUid)}
        aria-label={`Open ${title} (${images(series.instanceCount)})`}
      >
        <SeriesThumbnail series={series} />
        <CardContent sx={{ display: 'grid', gap: 0.5 }}>
          <Typography component="h3" variant="subtitle1" sx={{ fontWeight: 700, overflowWrap: 'anywhere' }}>
            {title}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {[series.modality, images(series.instanceCount)].filter(Boolean).join(' · ')}
          </Typography>
        </CardContent>
      </CardActionArea>
    </Card>
  );
}

function StudyHeader({
  study,
  onShare,
  onShareByLink,
}: {
  study: StudyDetail;
  onShare: (() => void) | null;
  onShareByLink: (() => void) | null;
}) {
  const { displayLocale, displayTimeZone } = usePublicSettings();
  const name = (u: { firstname: string; lastname: string }) => `${u.firstname} ${u.lastname}`.trim() || 'N/A';
  return (
    <Box component="header" sx={{ mb: 3, display: 'grid', gap: 0.75 }}>
      <title>{`${study.caption} · ${site.name}`}</title>
      <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 }, overflowWrap: 'anywhere' }}>
        {study.caption}
      </Typography>
      <Typography sx={{ fontWeight: 600 }}>{studyHeadline(study, displayLocale)}</Typography>
      {study.description && <Typography sx={{ overflowWrap: 'anywhere' }}>{study.description}</Typography>}
      <Typography>{studyCounts(study)}</Typography>
      <Typography variant="body2">
        <strong>Patient:</strong> {study.patient ? name(study.patient) : 'N/A'} · <strong>Shared by:</strong>{' '}
        {name(study.sharedBy)}
      </Typography>
      {study.expiresAt && (
        <Typography variant="body2" color="text.secondary">
          {`Share ends ${formatDateTime(study.expiresAt, displayLocale, displayTimeZone)}`}
        </Typography>
      )}
      <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center', mt: 1 }}>
        <Button component={RouterLink} to={paths.viewImages} startIcon={<ArrowBackIcon />} size="small">
          View Images
        </Button>
        {onShare && (
          <Button variant="contained" size="small" startIcon={<ShareIcon />} onClick={onShare}>
            Share study
          </Button>
        )}
        {onShareByLink && (
          <Button variant="outlined" size="small" startIcon={<AddLinkIcon />} onClick={onShareByLink}>
            Share by link
          </Button>
        )}
        {study.deidentified && <Chip size="small" label="De-identified" variant="outlined" />}
      </Box>
    </Box>
  );
}

/**
 * The study page `/studies/:studyUid` (`docs/product.md` › View images): what the study is, its series
 * (thumbnail, description, image count), each opening the stack viewer, and Share study for its
 * uploader. The server answers only the instances the viewer may see.
 */
export function StudyPage({ studyUid }: { studyUid: string }) {
  const user = useAppSelector(selectUser);
  const { displayLocale, displayTimeZone } = usePublicSettings();
  // Others share, verify, revoke and delete: opening the page reads the study again.
  const { data: study, error, isLoading, isFetching } = useStudyQuery(studyUid, { refetchOnMountOrArgChange: true });
  const [sharing, setSharing] = useState(false);
  const [linking, setLinking] = useState(false);
  if (!user) return null;

  if (isLoading) return <DelayedLinearProgress aria-label="Loading study" />;
  if (!study) {
    const missing = error instanceof ApiError && (error.status === 404 || error.status === 400);
    return (
      <Box sx={{ display: 'grid', gap: 2, justifyItems: 'start' }}>
        <title>{`Study · ${site.name}`}</title>
        <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 } }}>
          Study
        </Typography>
        <Alert severity={missing ? 'info' : 'error'}>
          {missing
            ? 'This study is not among the studies you may open. If it was shared with you, enter its code on View Images first.'
            : 'The study could not be loaded. Please try again.'}
        </Alert>
        <Button component={RouterLink} to={paths.viewImages} startIcon={<ArrowBackIcon />}>
          View Images
        </Button>
      </Box>
    );
  }
  const actions = studyActions(study, { id: user.id, role: user.role });
  return (
    <>
      <Box sx={{ minHeight: 4, mb: 1 }}>{isFetching && <DelayedLinearProgress aria-label="Loading study" />}</Box>
      <StudyHeader
        study={study}
        onShare={actions.share ? () => setSharing(true) : null}
        onShareByLink={studyMayShareByLink(study, { id: user.id, role: user.role }) ? () => setLinking(true) : null}
      />
      <Typography id="series-heading" component="h2" variant="h5" sx={{ mb: 2, fontWeight: 700 }}>
        Series
      </Typography>
      <Box
        component="ul"
        aria-labelledby="series-heading"
        sx={{
          p: 0,
          m: 0,
          display: 'grid',
          gap: 2,
          gridTemplateColumns: { xs: '1fr', sm: 'repeat(auto-fill, minmax(240px, 1fr))' },
        }}
      >
        {study.series.map((series) => (
          <SeriesCard key={series.seriesUid} studyUid={study.studyUid} series={series} />
        ))}
      </Box>
      <ShareStudyDialog
        study={sharing ? study : null}
        viewerId={user.id}
        locale={displayLocale}
        timeZone={displayTimeZone}
        onClose={() => setSharing(false)}
      />
      <ExternalShareDialog
        target={linking ? { kind: 'study', studyUid: study.studyUid, caption: study.caption } : null}
        locale={displayLocale}
        timeZone={displayTimeZone}
        onClose={() => setLinking(false)}
      />
    </>
  );
}

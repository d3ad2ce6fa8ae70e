import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink, generatePath, useParams } from 'react-router';
import { paths } from '../../config/paths';
import { site } from '../../config/site';
import { StackViewer } from './components/stack-viewer';

/** The study page the series belongs to: paths.series without its last two segments. */
const STUDY_PATTERN = paths.series.slice(0, paths.series.indexOf('/series/'));

/** /studies/:studyUid/series/:seriesUid — the stack viewer, loaded only on this route (the router imports it lazily). */
export default function SeriesViewerRoute() {
  const { studyUid = '', seriesUid = '' } = useParams();
  return (
    <>
      <title>{`Series Viewer · ${site.name}`}</title>
      <Stack
        direction="row"
        sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: 1, mb: 2 }}
      >
        <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 } }}>
          Series Viewer
        </Typography>
        <Button
          component={RouterLink}
          to={generatePath(STUDY_PATTERN, { studyUid })}
          startIcon={<ArrowBackIcon />}
          size="small"
        >
          Back to the study
        </Button>
      </Stack>
      <StackViewer key={`${studyUid}/${seriesUid}`} studyUid={studyUid} seriesUid={seriesUid} />
    </>
  );
}

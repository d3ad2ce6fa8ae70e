import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { Link as RouterLink, useParams } from 'react-router';
import { paths } from '../../../config/paths';
import { site } from '../../../config/site';
import { AnalysisScreen } from '../../../features/analysis/components/analysis-screen';

export default function AiAnalysisRoute() {
  const { id } = useParams();
  return (
    <>
      <title>{`AI Medical Analysis · ${site.name}`}</title>
      <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 }, mb: 3 }}>
        AI Medical Analysis
      </Typography>
      {id ? (
        <AnalysisScreen key={id} imageId={id} />
      ) : (
        <Paper variant="outlined" sx={{ p: { xs: 3, sm: 4 } }}>
          <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
            Choose an image to analyse
          </Typography>
          <Typography>
            AI analysis works on one image at a time. Open{' '}
            <Link component={RouterLink} to={paths.viewImages}>
              View Images
            </Link>{' '}
            and press the Ai button on an image card.
          </Typography>
        </Paper>
      )}
    </>
  );
}

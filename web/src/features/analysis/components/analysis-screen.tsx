import { AnalysisTexts } from '@medshare/contracts/analysis-text';
import ReplayIcon from '@mui/icons-material/Replay';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { skipToken } from '@reduxjs/toolkit/query/react';
import { useEffect, useMemo, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../../config/paths';
import { usePublicSettings } from '../../../lib/public-settings';
import { useGetAnalysisHistoryQuery, useGetAnalysisQuery, useRunAnalysisMutation } from '../api/analysis';
import { analysisErrorMessage, cleanAnalysis } from '../utils/format';
import { AnalysisHistory } from './analysis-history';
import { AnalysisReport } from './analysis-report';

function Analyzing() {
  return (
    <Stack role="status" direction="row" spacing={2} sx={{ alignItems: 'center', py: 6, justifyContent: 'center' }}>
      <CircularProgress size={28} aria-hidden />
      <Typography variant="h6" component="p">
        Analyzing
      </Typography>
    </Stack>
  );
}

/** The AI analysis of one image: the stored result (or a first run), re-run, and earlier results. */
export function AnalysisScreen({ imageId }: { imageId: string }) {
  const { displayLocale, displayTimeZone } = usePublicSettings();
  const display = { displayLocale, displayTimeZone };
  const latest = useGetAnalysisQuery(imageId);
  // Asked for once the analysis exists: a first run is part of the history it answers.
  const earlier = useGetAnalysisHistoryQuery(latest.currentData ? imageId : skipToken);
  const [run, { isLoading: running }] = useRunAnalysisMutation();
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [runError, setRunError] = useState<string | null>(null);

  useEffect(() => {
    setSelectedId(null);
    setRunError(null);
  }, [imageId]);

  const latestShown = useMemo(
    () => (latest.currentData ? cleanAnalysis(latest.currentData) : null),
    [latest.currentData],
  );
  const history = useMemo(() => earlier.currentData?.map(cleanAnalysis) ?? null, [earlier.currentData]);
  const state = latestShown
    ? {
        status: 'ready' as const,
        latestId: latestShown.id,
        shown: history?.find((item) => item.id === selectedId) ?? latestShown,
      }
    : latest.isError
      ? { status: 'error' as const, message: analysisErrorMessage(latest.error) }
      : { status: 'loading' as const };

  async function rerun() {
    setRunError(null);
    try {
      await run(imageId).unwrap();
      setSelectedId(null);
    } catch (error) {
      setRunError(analysisErrorMessage(error));
    }
  }

  const ready = state.status === 'ready' ? state : null;
  return (
    <Stack spacing={2}>
      <Alert severity="info" variant="outlined">
        <AlertTitle>Not a diagnosis</AlertTitle>
        {ready?.shown.disclaimer ?? AnalysisTexts.disclaimer}
      </Alert>

      {state.status === 'loading' && <Analyzing />}

      {state.status === 'error' && (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" component={RouterLink} to={paths.viewImages}>
              View Images
            </Button>
          }
        >
          {state.message}
        </Alert>
      )}

      {ready && (
        <>
          <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
            <Button
              variant="contained"
              startIcon={running ? <CircularProgress size={16} color="inherit" aria-hidden /> : <ReplayIcon />}
              onClick={() => void rerun()}
              disabled={running}
            >
              {running ? 'Analyzing…' : 'Re-run'}
            </Button>
            <Link component={RouterLink} to={paths.viewImages}>
              Back to View Images
            </Link>
          </Stack>
          {running && (
            <Box
              role="status"
              sx={{ position: 'absolute', width: '1px', height: '1px', overflow: 'hidden', clip: 'rect(0 0 0 0)' }}
            >
              Analyzing
            </Box>
          )}
          {runError && (
            <Alert severity="error" onClose={() => setRunError(null)}>
              {runError}
            </Alert>
          )}
          <AnalysisReport analysis={ready.shown} display={display} earlier={ready.shown.id !== ready.latestId} />
          {history && (
            <AnalysisHistory
              items={history}
              selectedId={ready.shown.id}
              display={display}
              onSelect={(shown) => setSelectedId(shown.id)}
            />
          )}
        </>
      )}
    </Stack>
  );
}

import type { Analysis } from '@medshare/contracts';
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
import { useCallback, useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../../config/paths';
import {
  DEFAULT_DISPLAY,
  type DisplaySettings,
  getAnalysis,
  getAnalysisHistory,
  getDisplaySettings,
  runAnalysis,
} from '../api/analysis';
import { analysisErrorMessage, cleanAnalysis } from '../utils/format';
import { AnalysisHistory } from './analysis-history';
import { AnalysisReport } from './analysis-report';

type State =
  { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; shown: Analysis; latestId: string };

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
  const [state, setState] = useState<State>({ status: 'loading' });
  const [history, setHistory] = useState<Analysis[] | null>(null);
  const [display, setDisplay] = useState<DisplaySettings>(DEFAULT_DISPLAY);
  const [running, setRunning] = useState(false);
  const [runError, setRunError] = useState<string | null>(null);

  const loadHistory = useCallback(
    async (signal?: AbortSignal) => {
      try {
        const { data } = await getAnalysisHistory(imageId, signal);
        setHistory(data.map(cleanAnalysis));
      } catch {
        if (!signal?.aborted) setHistory(null);
      }
    },
    [imageId],
  );

  useEffect(() => {
    const controller = new AbortController();
    setState({ status: 'loading' });
    setHistory(null);
    setRunError(null);
    void getDisplaySettings(controller.signal).then((d) => {
      if (!controller.signal.aborted) setDisplay(d);
    });
    getAnalysis(imageId, controller.signal)
      .then(({ data }) => {
        const shown = cleanAnalysis(data);
        setState({ status: 'ready', shown, latestId: shown.id });
        return loadHistory(controller.signal);
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setState({ status: 'error', message: analysisErrorMessage(error) });
      });
    return () => controller.abort();
  }, [imageId, loadHistory]);

  async function rerun() {
    setRunning(true);
    setRunError(null);
    try {
      const { data } = await runAnalysis(imageId);
      const shown = cleanAnalysis(data);
      setState({ status: 'ready', shown, latestId: shown.id });
      await loadHistory();
    } catch (error) {
      setRunError(analysisErrorMessage(error));
    } finally {
      setRunning(false);
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
              onSelect={(shown) => setState({ ...ready, shown })}
            />
          )}
        </>
      )}
    </Stack>
  );
}

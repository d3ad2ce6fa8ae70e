import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorIcon from '@mui/icons-material/Error';
import HourglassEmptyIcon from '@mui/icons-material/HourglassEmpty';
import InfoIcon from '@mui/icons-material/Info';
import BlockIcon from '@mui/icons-material/Block';
import UploadIcon from '@mui/icons-material/Upload';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import type { UserListItem } from '@medshare/contracts';
import { MAX_CAPTION_LENGTH } from '@medshare/contracts/constants';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../../config/paths';
import { apiSlice } from '../../../lib/api-slice';
import { usePublicSettings } from '../../../lib/public-settings';
import { useAppDispatch } from '../../../lib/store';
import { IMAGE_LIST_TAG } from '../api/list-images';
import { uploadImage } from '../api/upload-image';
import { type ImportItem, type ImportPlan, type ItemState, planImport } from '../utils/import-plan';
import { runImport } from '../utils/import-queue';
import type { PickedFile } from '../utils/import-sources';
import { PatientPicker } from './patient-picker';

type Phase = 'planning' | 'ready' | 'running' | 'done';

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** How each state reads in the list (`docs/product.md` › Upload). */
function describe(state: ItemState): { label: string; detail?: string; color: string; icon: React.ReactNode } {
  switch (state.status) {
    case 'queued':
      return { label: 'Queued', color: 'text.secondary', icon: <HourglassEmptyIcon fontSize="small" /> };
    case 'uploading':
      return {
        label: `Uploading ${Math.round(state.fraction * 100)}%`,
        detail: state.attempt > 1 ? `try ${state.attempt}` : undefined,
        color: 'primary.main',
        icon: <CircularProgress size={16} aria-hidden />,
      };
    case 'stored':
      return { label: 'Stored', color: 'success.main', icon: <CheckCircleIcon fontSize="small" /> };
    case 'duplicate':
      return { label: 'Already stored', color: 'info.main', icon: <InfoIcon fontSize="small" /> };
    case 'failed':
      return { label: 'Failed', detail: state.reason, color: 'error.main', icon: <ErrorIcon fontSize="small" /> };
    case 'skipped':
      return {
        label: 'Skipped',
        detail: state.reason,
        color: 'text.secondary',
        icon: <BlockIcon fontSize="small" />,
      };
  }
}

const isFinal = (s: ItemState) => s.status !== 'queued' && s.status !== 'uploading';
const isProblem = (s: ItemState) => s.status === 'failed' || s.status === 'skipped';

/** One file's row; memoised, so that a progress event re-renders only its own row. */
const ImportRow = memo(function ImportRow({ item }: { item: ImportItem }) {
  const d = describe(item.state);
  return (
    <Box
      component="li"
      data-testid="import-item"
      data-state={item.state.status}
      sx={{
        display: 'grid',
        gridTemplateColumns: { xs: '1fr', sm: 'minmax(0, 1fr) auto' },
        columnGap: 2,
        rowGap: 0.25,
        py: 0.75,
        px: 1,
        borderBottom: 1,
        borderColor: 'divider',
      }}
    >
      <Typography variant="body2" sx={{ overflowWrap: 'anywhere', minWidth: 0 }}>
        {item.path} <Box component="span" sx={{ color: 'text.secondary' }}>{`(${formatSize(item.size)})`}</Box>
      </Typography>
      <Stack direction="row" spacing={0.75} sx={{ alignItems: 'center', color: d.color, justifySelf: { sm: 'end' } }}>
        {d.icon}
        <Typography variant="body2" sx={{ fontWeight: 600, color: 'inherit' }}>
          {d.label}
        </Typography>
      </Stack>
      {d.detail && (
        <Typography variant="caption" color="text.secondary" sx={{ gridColumn: '1 / -1', overflowWrap: 'anywhere' }}>
          {d.detail}
        </Typography>
      )}
    </Box>
  );
});

/**
 * A study import (`docs/product.md` › Upload): what was chosen (files, a folder, a .zip) planned
 * into the DICOM files to send, then sent a few at a time with one overall progress bar and a
 * state per file.
 */
export function StudyImport({ picked, onChooseOther }: { picked: PickedFile[]; onChooseOther: () => void }) {
  const { maxUploadMb, maxImportFiles, maxImportMb } = usePublicSettings();
  const dispatch = useAppDispatch();
  const [phase, setPhase] = useState<Phase>('planning');
  const [plan, setPlan] = useState<ImportPlan | null>(null);
  const [items, setItems] = useState<ImportItem[]>([]);
  const [caption, setCaption] = useState('');
  const [patient, setPatient] = useState<UserListItem | null>(null);
  const [show, setShow] = useState<'all' | 'problems'>('all');
  const controllerRef = useRef<AbortController | null>(null);
  const startedRef = useRef(false);
  const [sentIds, setSentIds] = useState<ReadonlySet<number>>(new Set());

  // Planned again if the limits arrive after the defaults (they are the server's public settings).
  useEffect(() => {
    if (startedRef.current) return;
    let cancelled = false;
    setPhase('planning');
    planImport(picked, { maxUploadMb, maxImportFiles, maxImportMb }).then(
      (next) => {
        if (cancelled) return;
        setPlan(next);
        setItems(next.items);
        setPhase('ready');
      },
      () => {
        if (cancelled) return;
        setPlan({ items: [], refusal: 'The files you chose could not be read.', notes: [] });
        setPhase('ready');
      },
    );
    return () => {
      cancelled = true;
    };
  }, [picked, maxUploadMb, maxImportFiles, maxImportMb]);

  useEffect(() => () => controllerRef.current?.abort(), []);

  const counts = useMemo(() => {
    const c = { queued: 0, uploading: 0, stored: 0, duplicate: 0, failed: 0, skipped: 0 };
    for (const item of items) c[item.state.status]++;
    return c;
  }, [items]);

  const toSend = plan ? plan.items.filter((i) => i.state.status === 'queued') : [];
  const toSendBytes = toSend.reduce((sum, i) => sum + i.size, 0);

  const progress = useMemo(() => {
    let total = 0;
    let done = 0;
    let finished = 0;
    for (const item of items) {
      if (!sentIds.has(item.id)) continue;
      total += item.size;
      if (isFinal(item.state)) {
        done += item.size;
        finished++;
      } else if (item.state.status === 'uploading') done += item.size * item.state.fraction;
    }
    return { percent: total ? Math.round((done / total) * 100) : 0, finished, of: sentIds.size };
  }, [items, sentIds]);

  async function start() {
    if (!plan || plan.refusal || phase !== 'ready') return;
    const controller = new AbortController();
    controllerRef.current = controller;
    startedRef.current = true;
    setSentIds(new Set(toSend.map((i) => i.id)));
    setPhase('running');
    await runImport(plan.items, {
      caption,
      patientId: patient?.id,
      maxUploadMb,
      signal: controller.signal,
      upload: uploadImage,
      onState: (id, state) => setItems((prev) => prev.map((item) => (item.id === id ? { ...item, state } : item))),
    });
    controllerRef.current = null;
    // New images make the lists and the counts stale (as a single upload does).
    dispatch(apiSlice.util.invalidateTags([IMAGE_LIST_TAG, 'UserStats', 'AdminSummary']));
    setPhase('done');
  }

  const visible = show === 'problems' ? items.filter((i) => isProblem(i.state)) : items;
  const problems = counts.failed + counts.skipped;
  const summary = `${counts.stored} stored, ${counts.duplicate} already stored, ${counts.failed} failed, ${counts.skipped} skipped`;

  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 }, maxWidth: 760 }} aria-labelledby="study-import-title">
      <Stack spacing={2.5}>
        <Box>
          <Typography id="study-import-title" variant="h6" component="h2">
            Import a study
          </Typography>
          {phase === 'planning' ? (
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mt: 1 }} role="status">
              <CircularProgress size={18} aria-hidden />
              <Typography variant="body2">{`Reading ${plural(picked.length, 'file')}…`}</Typography>
            </Stack>
          ) : (
            plan && (
              <Typography variant="body2" color="text.secondary" data-testid="import-summary">
                {`${plural(toSend.length, 'DICOM file')} to import (${formatSize(toSendBytes)})`}
                {plan.items.length - toSend.length > 0 && `, ${plan.items.length - toSend.length} not imported`}
                {` · at most ${maxUploadMb} MB each, ${maxImportFiles} files and ${maxImportMb} MB per import`}
              </Typography>
            )
          )}
        </Box>

        {plan?.notes.map((note) => (
          <Alert key={note} severity="info">
            {note}
          </Alert>
        ))}
        {plan?.refusal && (
          <Alert severity="error" role="alert" data-testid="import-refusal">
            {plan.refusal}
          </Alert>
        )}

        {phase === 'ready' && plan && !plan.refusal && (
          <>
            <TextField
              label="Caption (optional)"
              value={caption}
              onChange={(event) => setCaption(event.target.value)}
              helperText="Left empty, each file is captioned with its study's description."
              slotProps={{ htmlInput: { maxLength: MAX_CAPTION_LENGTH } }}
            />
            <PatientPicker value={patient} onChange={setPatient} />
          </>
        )}

        {(phase === 'running' || phase === 'done') && (
          <Box>
            <LinearProgress
              variant="determinate"
              value={progress.percent}
              aria-label="Import progress"
              sx={{ height: 8, borderRadius: 1 }}
            />
            <Typography variant="body2" sx={{ mt: 0.5 }} data-testid="import-progress">
              {`${progress.finished} of ${plural(progress.of, 'file')} done · ${progress.percent}%`}
            </Typography>
            <Typography variant="body2" color="text.secondary" aria-live="polite">
              {summary}
            </Typography>
          </Box>
        )}

        {phase === 'done' && (
          <Alert severity={counts.failed ? 'warning' : 'success'} data-testid="import-done">
            {`Import finished: ${summary}.`}
            {counts.failed > 0 && ' The failed files are listed below with their reasons; import them again to retry.'}
          </Alert>
        )}

        <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', gap: 1 }}>
          {phase === 'ready' && plan && !plan.refusal && (
            <Button variant="contained" size="large" startIcon={<UploadIcon />} onClick={() => void start()}>
              {`Import ${plural(toSend.length, 'DICOM file')}`}
            </Button>
          )}
          {phase === 'running' && (
            <Button variant="outlined" color="error" onClick={() => controllerRef.current?.abort()}>
              Cancel import
            </Button>
          )}
          {phase !== 'running' && (
            <Button variant={phase === 'done' ? 'contained' : 'outlined'} onClick={onChooseOther}>
              {phase === 'done' ? 'Import more files' : 'Choose other files'}
            </Button>
          )}
          {phase === 'done' && (
            <Button component={RouterLink} to={paths.viewImages}>
              View images
            </Button>
          )}
        </Stack>

        {items.length > 0 && (
          <Box>
            <ToggleButtonGroup
              size="small"
              exclusive
              value={show}
              onChange={(_, next: 'all' | 'problems' | null) => next && setShow(next)}
              aria-label="Files shown"
              sx={{ mb: 1 }}
            >
              <ToggleButton value="all" sx={{ color: 'text.primary' }}>{`All (${items.length})`}</ToggleButton>
              <ToggleButton value="problems" sx={{ color: 'text.primary' }}>
                {`Failed or skipped (${problems})`}
              </ToggleButton>
            </ToggleButtonGroup>
            <Box
              component="ul"
              aria-label="Files of this import"
              tabIndex={0}
              sx={{
                listStyle: 'none',
                m: 0,
                p: 0,
                maxHeight: 420,
                overflowY: 'auto',
                border: 1,
                borderColor: 'divider',
                borderRadius: 1,
              }}
            >
              {visible.map((item) => (
                <ImportRow key={item.id} item={item} />
              ))}
            </Box>
          </Box>
        )}
      </Stack>
    </Paper>
  );
}

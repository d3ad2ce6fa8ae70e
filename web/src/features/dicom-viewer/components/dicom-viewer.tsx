import type { DicomMetadata } from '@medshare/contracts';
import ContrastIcon from '@mui/icons-material/Contrast';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import InvertColorsIcon from '@mui/icons-material/InvertColors';
import OpenWithIcon from '@mui/icons-material/OpenWith';
import PauseIcon from '@mui/icons-material/Pause';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import RestartAltIcon from '@mui/icons-material/RestartAlt';
import ZoomInIcon from '@mui/icons-material/ZoomIn';
import ZoomOutIcon from '@mui/icons-material/ZoomOut';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Drawer from '@mui/material/Drawer';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Slider from '@mui/material/Slider';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useTheme } from '@mui/material/styles';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useAppDispatch } from '../../../lib/store';
import { dicomApi, fetchDicomBytes, loadErrorMessage } from '../api/dicom';
import type { CornerstoneViewer, ToolMode, ViewerState } from '../engine/cornerstone-viewer';
import { useCineControls } from '../hooks/use-cine-controls';
import { frameCount } from '../utils/format-metadata';
import { DEFAULT_FPS, FPS_OPTIONS, SHORTCUT_HELP, shortcutFor } from '../utils/shortcuts';
import {
  PRESETS,
  formatWindowLevel,
  matchingPreset,
  presetById,
  type PresetId,
  type WindowLevel,
} from '../utils/window-level';
import { MetadataPanel } from './metadata-panel';

/** Behind the overlay text: over pure white it composites to #616161, 6.2:1 against white text. */
const OVERLAY_PLATE = 'rgba(0, 0, 0, 0.62)';

type Phase = { status: 'loading' } | { status: 'rendered' } | { status: 'error'; title: string; detail: string };

const MODES: Array<{ mode: ToolMode; label: string; icon: React.ReactNode; key: string }> = [
  { mode: 'windowLevel', label: 'Window/level', icon: <ContrastIcon />, key: 'W' },
  { mode: 'zoom', label: 'Zoom', icon: <ZoomInIcon />, key: 'Z' },
  { mode: 'pan', label: 'Pan', icon: <OpenWithIcon />, key: 'P' },
];

/** Keys typed into a form field are the field's, not the viewer's. */
function isTypingTarget(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.role === 'combobox')
  );
}

export function DicomViewer({ imageId }: { imageId: string }) {
  const theme = useTheme();
  const wide = useMediaQuery(theme.breakpoints.up('md'));
  const elementRef = useRef<HTMLDivElement>(null);
  const viewerRef = useRef<CornerstoneViewer | null>(null);
  const [metadata, setMetadata] = useState<DicomMetadata | null>(null);
  const [phase, setPhase] = useState<Phase>({ status: 'loading' });
  const [view, setView] = useState<ViewerState | null>(null);
  const [defaultWindow, setDefaultWindow] = useState<WindowLevel | null>(null);
  const [mode, setMode] = useState<ToolMode>('windowLevel');
  const [playing, setPlaying] = useState(false);
  const [fps, setFps] = useState<number>(DEFAULT_FPS);
  const [detailsOpen, setDetailsOpen] = useState(false);
  const dispatch = useAppDispatch();

  useEffect(() => {
    const controller = new AbortController();
    // The metadata comes through the server-state cache (held while this screen shows the image);
    // the bytes in parallel, straight to the engine.
    const metadataRequest = dispatch(dicomApi.endpoints.getDicomMetadata.initiate(imageId));
    let viewer: CornerstoneViewer | null = null;
    let cancelled = false;
    setPhase({ status: 'loading' });
    setView(null);
    setPlaying(false);

    (async () => {
      let meta: DicomMetadata;
      let bytes: Uint8Array;
      try {
        [meta, bytes] = await Promise.all([metadataRequest.unwrap(), fetchDicomBytes(imageId, controller.signal)]);
      } catch (error) {
        if (cancelled) return;
        setPhase({ status: 'error', title: 'The image could not be loaded', detail: loadErrorMessage(error) });
        return;
      }
      if (cancelled) return;
      setMetadata(meta);
      if (meta.dicom.kind === 'document') {
        setPhase({
          status: 'error',
          title: 'Nothing to display',
          detail: 'This DICOM object has no pixel data (a report or a waveform). Download it to open it elsewhere.',
        });
        return;
      }
      try {
        // Cornerstone3D, vtk.js and the codecs come in only now, as their own chunk.
        const { CornerstoneViewer } = await import('../engine/cornerstone-viewer');
        if (cancelled || !elementRef.current) return;
        viewer = new CornerstoneViewer(elementRef.current, {
          onChange: (state) => {
            setView(state);
            setPhase((p) => (p.status === 'rendered' ? p : { status: 'rendered' }));
          },
        });
        viewerRef.current = viewer;
        const opened = await viewer.open(bytes);
        if (!cancelled) setDefaultWindow(opened.defaultWindow);
      } catch (error) {
        if (cancelled) return;
        const { describeError } = await import('../engine/cornerstone-viewer');
        viewer?.destroy();
        viewer = null;
        viewerRef.current = null;
        setPhase({
          status: 'error',
          title: 'This DICOM file could not be displayed',
          detail: `The file was downloaded but its pixels could not be decoded (${describeError(error)}). You can still download it and open it in another DICOM viewer.`,
        });
      }
    })();

    return () => {
      cancelled = true;
      controller.abort();
      metadataRequest.unsubscribe();
      viewer?.destroy();
      viewerRef.current = null;
    };
  }, [imageId, dispatch]);

  const frames = view?.frames ?? frameCount(metadata, null);
  const rendered = phase.status === 'rendered';
  const currentPreset = view?.window ? matchingPreset(view.window, defaultWindow) : null;

  const goToFrame = useCallback((index: number) => void viewerRef.current?.goToFrame(index), []);
  const choosePreset = useCallback((id: PresetId) => viewerRef.current?.setWindow(presetById(id).window), []);
  const chooseMode = useCallback((next: ToolMode) => {
    setMode(next);
    viewerRef.current?.setMode(next);
  }, []);

  // Cine: one frame per tick; the viewer wraps from the last frame back to the first.
  const frameRef = useRef(0);
  frameRef.current = view?.frame ?? 0;
  useEffect(() => {
    if (!playing || frames < 2) return;
    const timer = window.setInterval(() => goToFrame(frameRef.current + 1), 1000 / fps);
    return () => window.clearInterval(timer);
  }, [playing, fps, frames, goToFrame]);
  const { togglePlaying, sliderHandlers } = useCineControls({
    playing,
    setPlaying,
    shown: view?.frame ?? 0,
    goTo: goToFrame,
  });

  useEffect(() => {
    if (!rendered) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTypingTarget(event.target)) return;
      const action = shortcutFor(event.key);
      if (!action) return;
      // Space and arrows on a focused button or slider keep their own meaning.
      const onControl =
        event.target instanceof HTMLElement && event.target !== document.body && event.target !== elementRef.current;
      if ((action.type === 'play' || action.type === 'frame') && onControl) return;
      const viewer = viewerRef.current;
      if (!viewer) return;
      event.preventDefault();
      switch (action.type) {
        case 'preset':
          choosePreset(action.preset);
          break;
        case 'mode':
          chooseMode(action.mode);
          break;
        case 'invert':
          viewer.toggleInvert();
          break;
        case 'reset':
          viewer.reset();
          break;
        case 'zoom':
          viewer.zoomBy(action.factor);
          break;
        case 'frame':
          if (frames > 1) goToFrame(frameRef.current + action.step);
          break;
        case 'play':
          if (frames > 1) togglePlaying();
          break;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [rendered, frames, choosePreset, chooseMode, goToFrame, togglePlaying]);

  const disabled = !rendered;
  const toolbar = (
    <Box
      role="toolbar"
      aria-label="Viewer tools"
      sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, alignItems: 'center', mb: 1 }}
    >
      <ToggleButtonGroup
        size="small"
        exclusive
        value={mode}
        onChange={(_, next: ToolMode | null) => next && chooseMode(next)}
        aria-label="Drag tool"
        disabled={disabled}
      >
        {MODES.map((m) => (
          <ToggleButton
            key={m.mode}
            value={m.mode}
            aria-label={`${m.label} (${m.key})`}
            title={`${m.label} (${m.key})`}
          >
            {m.icon}
          </ToggleButton>
        ))}
      </ToggleButtonGroup>
      <Box sx={{ display: 'flex', gap: 0.5 }}>
        <Tooltip title="Zoom in (+)">
          <span>
            <IconButton aria-label="Zoom in" disabled={disabled} onClick={() => viewerRef.current?.zoomBy(1.25)}>
              <ZoomInIcon />
            </IconButton>
          </span>
        </Tooltip>
        <Tooltip title="Zoom out (−)">
          <span>
            <IconButton aria-label="Zoom out" disabled={disabled} onClick={() => viewerRef.current?.zoomBy(0.8)}>
              <ZoomOutIcon />
            </IconButton>
          </span>
        </Tooltip>
        <Tooltip title="Invert (I)">
          <span>
            <IconButton
              aria-label="Invert"
              aria-pressed={view?.invert ?? false}
              disabled={disabled}
              onClick={() => viewerRef.current?.toggleInvert()}
            >
              <InvertColorsIcon />
            </IconButton>
          </span>
        </Tooltip>
        <Tooltip title="Reset view (R)">
          <span>
            <IconButton aria-label="Reset view" disabled={disabled} onClick={() => viewerRef.current?.reset()}>
              <RestartAltIcon />
            </IconButton>
          </span>
        </Tooltip>
        {!wide && (
          <IconButton
            aria-label="Image details"
            aria-expanded={detailsOpen}
            disabled={!metadata}
            onClick={() => setDetailsOpen(true)}
          >
            <InfoOutlinedIcon />
          </IconButton>
        )}
      </Box>
      <ToggleButtonGroup
        size="small"
        exclusive
        value={currentPreset}
        onChange={(_, next: PresetId | null) => next && choosePreset(next)}
        aria-label="Window presets"
        disabled={disabled}
        sx={{ flexWrap: 'wrap' }}
      >
        {PRESETS.map((p) => (
          <ToggleButton
            key={p.id}
            value={p.id}
            aria-label={
              p.window
                ? `${p.label} window, W ${p.window.width} L ${p.window.center} (${p.key})`
                : `Default window (${p.key})`
            }
            title={p.window ? `W ${p.window.width} / L ${p.window.center} (${p.key})` : `From the file (${p.key})`}
            // The theme's default grey is too faint on white for WCAG AA text.
            sx={{ px: 1.25, color: 'text.primary' }}
          >
            {p.label}
          </ToggleButton>
        ))}
      </ToggleButtonGroup>
    </Box>
  );

  const cine =
    frames > 1 ? (
      <Box
        role="group"
        aria-label="Frames"
        sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', columnGap: 2, rowGap: 1, mt: 1 }}
      >
        <IconButton aria-label={playing ? 'Pause' : 'Play'} disabled={disabled} onClick={togglePlaying} color="primary">
          {playing ? <PauseIcon /> : <PlayArrowIcon />}
        </IconButton>
        <Slider
          aria-label="Frame"
          min={0}
          max={frames - 1}
          step={1}
          value={view?.frame ?? 0}
          getAriaValueText={(v) => `Frame ${v + 1} of ${frames}`}
          {...sliderHandlers}
          disabled={disabled}
          sx={{ flex: '1 1 160px', minWidth: 140 }}
        />
        <Typography variant="body2" aria-live="off" sx={{ minWidth: 90 }}>
          {`Frame ${(view?.frame ?? 0) + 1} / ${frames}`}
        </Typography>
        <TextField
          select
          size="small"
          label="Speed"
          value={fps}
          onChange={(e) => setFps(Number(e.target.value))}
          slotProps={{ htmlInput: { 'aria-label': 'Frames per second' } }}
          sx={{ width: 110 }}
        >
          {FPS_OPTIONS.map((n) => (
            <MenuItem key={n} value={n}>{`${n} fps`}</MenuItem>
          ))}
        </TextField>
      </Box>
    ) : null;

  const overlay = view && (
    <Box
      aria-hidden
      data-testid="dicom-overlay"
      sx={{
        position: 'absolute',
        left: 8,
        bottom: 8,
        px: 0.75,
        py: 0.25,
        borderRadius: 0.5,
        // Its own dark plate: white text stays readable (contrast above 6:1) on a white image too.
        bgcolor: OVERLAY_PLATE,
        color: '#fff',
        fontSize: 12,
        lineHeight: 1.4,
        pointerEvents: 'none',
        fontVariantNumeric: 'tabular-nums',
      }}
    >
      {view.window && <div>{formatWindowLevel(view.window)}</div>}
      <div>{`Zoom ${Math.round(view.zoom * 100)}%${view.frames > 1 ? ` · Frame ${view.frame + 1}/${view.frames}` : ''}`}</div>
    </Box>
  );

  const details = metadata ? <MetadataPanel metadata={metadata} /> : null;

  return (
    <Box
      sx={{
        display: 'grid',
        gap: 2,
        gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'minmax(0, 1fr) 280px' },
        alignItems: 'start',
      }}
    >
      <Box sx={{ minWidth: 0 }}>
        {metadata?.caption && (
          <Typography
            component="p"
            data-testid="dicom-caption"
            sx={{ fontWeight: 600, fontSize: { xs: 16, sm: 18 }, mb: 1.5, overflowWrap: 'anywhere' }}
          >
            {metadata.caption}
          </Typography>
        )}
        {toolbar}
        <Box
          sx={{
            position: 'relative',
            bgcolor: '#000',
            borderRadius: 1,
            overflow: 'hidden',
            height: { xs: 'min(72vh, 420px)', md: 'min(72vh, 640px)' },
          }}
        >
          <Box
            ref={elementRef}
            data-testid="dicom-viewport"
            data-image={imageId}
            data-state={phase.status}
            data-frame={view?.frame ?? 0}
            role="img"
            aria-label={metadata?.dicom.modality ? `${metadata.dicom.modality} image` : 'DICOM image'}
            tabIndex={0}
            onContextMenu={(e) => e.preventDefault()}
            sx={{
              position: 'absolute',
              inset: 0,
              // Drags belong to the tools, not to page scrolling or the browser's pinch zoom.
              touchAction: 'none',
              userSelect: 'none',
              '&:focus-visible': { outline: '2px solid', outlineColor: 'primary.light', outlineOffset: -2 },
            }}
          />
          {overlay}
          {phase.status === 'loading' && (
            <Box
              role="status"
              sx={{ position: 'absolute', inset: 0, display: 'grid', placeItems: 'center', color: '#fff', gap: 1 }}
            >
              <Box sx={{ display: 'grid', justifyItems: 'center', gap: 1 }}>
                <CircularProgress color="inherit" size={32} aria-hidden />
                <Typography variant="body2">Loading image…</Typography>
              </Box>
            </Box>
          )}
          {phase.status === 'error' && (
            <Box
              sx={{
                position: 'absolute',
                inset: 0,
                display: 'grid',
                placeItems: 'center',
                p: 2,
                bgcolor: 'background.paper',
              }}
            >
              <Alert severity="error" role="alert" data-testid="dicom-error" sx={{ maxWidth: 520 }}>
                <AlertTitle>{phase.title}</AlertTitle>
                {phase.detail}
              </Alert>
            </Box>
          )}
        </Box>
        {cine}
        <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
          Drag on the image with the chosen tool (one finger on touch screens); right-drag or pinch to zoom; middle-drag
          to pan. Keys: {SHORTCUT_HELP}.
        </Typography>
      </Box>
      {wide ? (
        <Paper component="aside" aria-label="Image details" variant="outlined" sx={{ p: 2 }}>
          {details ?? <Typography variant="body2">Loading details…</Typography>}
        </Paper>
      ) : (
        <Drawer
          anchor="bottom"
          open={detailsOpen}
          onClose={() => setDetailsOpen(false)}
          slotProps={{ paper: { 'aria-label': 'Image details', sx: { p: 2, maxHeight: '70vh' } } }}
        >
          {details}
          <Button onClick={() => setDetailsOpen(false)} sx={{ mt: 2 }} variant="outlined">
            Close
          </Button>
        </Drawer>
      )}
    </Box>
  );
}

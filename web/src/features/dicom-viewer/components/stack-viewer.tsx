import ContrastIcon from '@mui/icons-material/Contrast';
import InvertColorsIcon from '@mui/icons-material/InvertColors';
import LayersIcon from '@mui/icons-material/Layers';
import OpenWithIcon from '@mui/icons-material/OpenWith';
import PauseIcon from '@mui/icons-material/Pause';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import RestartAltIcon from '@mui/icons-material/RestartAlt';
import ZoomInIcon from '@mui/icons-material/ZoomIn';
import ZoomOutIcon from '@mui/icons-material/ZoomOut';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import Slider from '@mui/material/Slider';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { fetchSeriesInstances, fetchSeriesMetadata, frameUrl } from '../api/series';
import { useCineControls } from '../hooks/use-cine-controls';
import {
  type CreateStackEngine,
  type StackEngine,
  type StackImageSource,
  type ToolMode,
  type ViewerState,
  createCornerstoneEngine,
} from '../engine/stack-engine';
import { type StackSlice, slicePositionText, stackSlices } from '../utils/series-instances';
import { DEFAULT_FPS, FPS_OPTIONS } from '../utils/shortcuts';
import { STACK_SHORTCUT_HELP, stackShortcutFor } from '../utils/stack-shortcuts';
import {
  PRESETS,
  formatWindowLevel,
  matchingPreset,
  presetById,
  type PresetId,
  type WindowLevel,
} from '../utils/window-level';

/** Behind the overlay text: white text on it stays readable over a white image (as in the single viewer). */
const OVERLAY_PLATE = 'rgba(0, 0, 0, 0.62)';

type Phase =
  { status: 'loading'; what: string } | { status: 'rendered' } | { status: 'error'; title: string; detail: string };

const MODES: Array<{ mode: ToolMode; label: string; icon: React.ReactNode; key: string }> = [
  { mode: 'scroll', label: 'Scroll slices', icon: <LayersIcon />, key: 'S' },
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

function loadError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 404) return 'This series does not exist, or it is not shared with you.';
    if (error.status === 0) return 'The server could not be reached. Check your connection and try again.';
    return error.message || `The series could not be loaded (HTTP ${error.status}).`;
  }
  return 'The series could not be loaded.';
}

const clamp = (n: number, max: number) => Math.min(Math.max(n, 0), max);

/** What the viewer calls what it shows: a series, or the files a share link holds (one image or a study). */
const WORDING = {
  series: {
    loading: 'Finding the images of this series…',
    notDisplayed: 'This series could not be displayed',
    empty: 'This series has no images you may see (its objects have no pixel data, or none is shared with you).',
    label: (modality: string | null) => (modality ? `${modality} series` : 'Series'),
  },
  files: {
    loading: 'Opening the shared images…',
    notDisplayed: 'These images could not be displayed',
    empty: 'What was shared has no images to show (its files have no pixel data).',
    label: (modality: string | null) => (modality ? `${modality} images` : 'Shared images'),
  },
} as const;

/**
 * Whole DICOM files to page through, in the order given (each frame of a multi-frame file in turn):
 * the share link page's images, read from `url` with or without the bearer header.
 */
export type StackFiles = {
  files: ReadonlyArray<{ id: string; url: string; frames: number }>;
  modality: string | null;
  authenticate: boolean;
  /** Told a refused read's status and message (the page may say the link ended). */
  onRefused?: (status: number, message: string) => void;
};

type StackViewerSource = { studyUid: string; seriesUid: string; files?: undefined } | { files: StackFiles };

type Loaded = { stack: StackSlice[]; sources: StackImageSource[]; modality: string | null };

/** A series' instances through QIDO-RS and their metadata, frames read over WADO-RS. */
async function loadSeries(studyUid: string, seriesUid: string, signal: AbortSignal): Promise<Loaded> {
  const [instances, bySop] = await Promise.all([
    fetchSeriesInstances(studyUid, seriesUid, signal),
    fetchSeriesMetadata(studyUid, seriesUid, signal),
  ]);
  // Only instances with pixel data (a report or a waveform in the series has no slice).
  const stack = stackSlices(instances.filter((i) => bySop.get(i.sopInstanceUid)?.['00280010']?.Value?.length));
  const mod = stack[0] ? bySop.get(stack[0].instance.sopInstanceUid)?.['00080060']?.Value?.[0] : null;
  return {
    stack,
    modality: typeof mod === 'string' ? mod : null,
    sources: stack.map(({ instance, frame }) => ({
      frameUrl: frameUrl(studyUid, seriesUid, instance.sopInstanceUid, frame),
      metadata: bySop.get(instance.sopInstanceUid) ?? {},
    })),
  };
}

function loadFiles({ files, modality, authenticate, onRefused }: StackFiles): Loaded {
  const stack = stackSlices(
    files.map((file) => ({
      sopInstanceUid: file.id,
      instanceNumber: null,
      sliceLocation: null,
      position: null,
      frames: Math.max(1, file.frames),
    })),
  );
  const urls = new Map(files.map((file) => [file.id, file.url]));
  return {
    stack,
    modality,
    sources: stack.map(({ instance, frame }) => ({
      fileUrl: urls.get(instance.sopInstanceUid)!,
      frame,
      frames: instance.frames,
      authenticate,
      ...(onRefused ? { onRefused } : {}),
    })),
  };
}

/**
 * A series in a stack viewer (`docs/product.md` › Stack viewer): its instances listed through
 * QIDO-RS, their frames read over WADO-RS with the bearer header by Cornerstone3D's stack viewport
 * (prefetched around the slice shown); scroll, arrows, swipe and cine through the slices, one
 * window/level and preset for the whole stack, the slice position always shown.
 */
export function StackViewer({
  createEngine = createCornerstoneEngine,
  onSlice,
  ...source
}: StackViewerSource & {
  createEngine?: CreateStackEngine;
  /** Told the index of the slice shown after each render. */
  onSlice?: (index: number) => void;
}) {
  const { studyUid, seriesUid } = source.files ? { studyUid: null, seriesUid: null } : source;
  const files = source.files ?? null;
  const wording = WORDING[files ? 'files' : 'series'];
  const elementRef = useRef<HTMLDivElement>(null);
  const engineRef = useRef<StackEngine | null>(null);
  const [phase, setPhase] = useState<Phase>({ status: 'loading', what: wording.loading });
  const [slices, setSlices] = useState<StackSlice[]>([]);
  const [view, setView] = useState<ViewerState | null>(null);
  const [defaultWindow, setDefaultWindow] = useState<WindowLevel | null>(null);
  const [mode, setMode] = useState<ToolMode>('scroll');
  const modeRef = useRef<ToolMode>('scroll');
  modeRef.current = mode;
  const [playing, setPlaying] = useState(false);
  const [fps, setFps] = useState<number>(DEFAULT_FPS);
  const [modality, setModality] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    let engine: StackEngine | null = null;
    let cancelled = false;
    setPhase({ status: 'loading', what: wording.loading });
    setView(null);
    setPlaying(false);
    (async () => {
      let loaded: Loaded;
      try {
        loaded = files ? loadFiles(files) : await loadSeries(studyUid!, seriesUid!, controller.signal);
      } catch (error) {
        if (cancelled) return;
        setPhase({ status: 'error', title: 'The series could not be loaded', detail: loadError(error) });
        return;
      }
      if (cancelled) return;
      const { stack } = loaded;
      if (!stack.length) {
        setPhase({
          status: 'error',
          title: 'Nothing to display',
          detail: wording.empty,
        });
        return;
      }
      setSlices(stack);
      setModality(loaded.modality);
      setPhase({ status: 'loading', what: `Loading ${stack.length} images…` });
      try {
        if (!elementRef.current) return;
        engine = await createEngine(elementRef.current, {
          onChange: (state) => {
            setView(state);
            setPhase((p) => (p.status === 'rendered' ? p : { status: 'rendered' }));
          },
        });
        if (cancelled) {
          engine.destroy();
          return;
        }
        engineRef.current = engine;
        // The tool chosen on screen (scroll at first) is the one the left button and one finger drive.
        engine.setMode(modeRef.current);
        const opened = await engine.openStack(loaded.sources);
        if (!cancelled) setDefaultWindow(opened.defaultWindow);
      } catch (error) {
        if (cancelled) return;
        engine?.destroy();
        engine = null;
        engineRef.current = null;
        setPhase({
          status: 'error',
          title: wording.notDisplayed,
          detail: `Its images could not be decoded (${error instanceof Error && error.message ? error.message : 'unknown decoder error'}).`,
        });
      }
    })();
    return () => {
      cancelled = true;
      controller.abort();
      engine?.destroy();
      engineRef.current = null;
    };
  }, [studyUid, seriesUid, files, createEngine, wording]);

  const count = slices.length;
  const index = view?.frame ?? 0;
  const rendered = phase.status === 'rendered';
  const currentPreset = view?.window ? matchingPreset(view.window, defaultWindow) : null;
  const position = useMemo(() => slicePositionText(index, slices), [index, slices]);
  useEffect(() => {
    if (view) onSlice?.(index);
  }, [view, index, onSlice]);

  // Where the last key press or slider move asked to go: presses quicker than the renders still add up.
  // While a move is on its way, a render of a slice it passes (an earlier press) must not pull the
  // target back; otherwise (the wheel or a drag moved the stack) the slice shown is the target.
  const targetRef = useRef(0);
  const movingRef = useRef(false);
  useEffect(() => {
    if (!movingRef.current) targetRef.current = index;
  }, [index]);
  const goTo = useCallback((next: number) => {
    const engine = engineRef.current;
    if (!engine) return;
    targetRef.current = next;
    movingRef.current = true;
    const arrived = () => {
      if (targetRef.current === next) movingRef.current = false;
    };
    engine.goToFrame(next).then(arrived, arrived);
  }, []);
  const step = useCallback(
    (delta: number) => {
      if (count < 2) return;
      setPlaying(false);
      goTo(clamp(targetRef.current + delta, count - 1));
    },
    [count, goTo],
  );
  const choosePreset = useCallback((id: PresetId) => engineRef.current?.setWindow(presetById(id).window), []);
  const chooseMode = useCallback((next: ToolMode) => {
    setMode(next);
    engineRef.current?.setMode(next);
  }, []);

  // Cine: one slice per tick, from the last back to the first.
  useEffect(() => {
    if (!playing || count < 2) return;
    const timer = window.setInterval(() => goTo((targetRef.current + 1) % count), 1000 / fps);
    return () => window.clearInterval(timer);
  }, [playing, fps, count, goTo]);
  const { togglePlaying, sliderHandlers } = useCineControls({ playing, setPlaying, shown: index, goTo });

  useEffect(() => {
    if (!rendered) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTypingTarget(event.target)) return;
      const action = stackShortcutFor(event.key);
      if (!action) return;
      // Space and arrows on a focused button or slider keep their own meaning.
      const onControl =
        event.target instanceof HTMLElement && event.target !== document.body && event.target !== elementRef.current;
      if ((action.type === 'play' || action.type === 'frame' || action.type === 'slice') && onControl) return;
      const engine = engineRef.current;
      if (!engine) return;
      event.preventDefault();
      switch (action.type) {
        case 'preset':
          choosePreset(action.preset);
          break;
        case 'mode':
          chooseMode(action.mode);
          break;
        case 'invert':
          engine.toggleInvert();
          break;
        case 'reset':
          engine.reset();
          break;
        case 'zoom':
          engine.zoomBy(action.factor);
          break;
        case 'frame':
          step(action.step);
          break;
        case 'slice':
          setPlaying(false);
          goTo(action.to === 'first' ? 0 : count - 1);
          break;
        case 'play':
          if (count > 1) togglePlaying();
          break;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [rendered, count, choosePreset, chooseMode, step, goTo, togglePlaying]);

  const disabled = !rendered;
  const iconButton = (label: string, key: string, icon: React.ReactNode, onClick: () => void, pressed?: boolean) => (
    <Tooltip title={`${label} (${key})`}>
      <span>
        <IconButton aria-label={label} aria-pressed={pressed} disabled={disabled} onClick={onClick}>
          {icon}
        </IconButton>
      </span>
    </Tooltip>
  );

  return (
    <Box sx={{ minWidth: 0 }}>
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
          {iconButton('Zoom in', '+', <ZoomInIcon />, () => engineRef.current?.zoomBy(1.25))}
          {iconButton('Zoom out', '−', <ZoomOutIcon />, () => engineRef.current?.zoomBy(0.8))}
          {iconButton(
            'Invert',
            'I',
            <InvertColorsIcon />,
            () => engineRef.current?.toggleInvert(),
            view?.invert ?? false,
          )}
          {iconButton('Reset view', 'R', <RestartAltIcon />, () => engineRef.current?.reset())}
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
              sx={{ px: 1.25, color: 'text.primary' }}
            >
              {p.label}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
      </Box>

      <Box
        sx={{
          position: 'relative',
          bgcolor: '#000',
          borderRadius: 1,
          overflow: 'hidden',
          height: { xs: 'min(62vh, 420px)', md: 'min(72vh, 640px)' },
        }}
      >
        <Box
          ref={elementRef}
          data-testid="stack-viewport"
          data-state={phase.status}
          data-slice={index}
          role="img"
          aria-label={`${wording.label(modality)}, image ${position}`}
          tabIndex={0}
          onContextMenu={(e) => e.preventDefault()}
          sx={{
            position: 'absolute',
            inset: 0,
            // Drags and swipes belong to the tools, not to page scrolling or the browser's pinch zoom.
            touchAction: 'none',
            userSelect: 'none',
            '&:focus-visible': { outline: '2px solid', outlineColor: 'primary.light', outlineOffset: -2 },
          }}
        />
        {view && (
          <Box
            aria-hidden
            sx={{
              position: 'absolute',
              left: 8,
              bottom: 8,
              px: 0.75,
              py: 0.25,
              borderRadius: 0.5,
              bgcolor: OVERLAY_PLATE,
              color: '#fff',
              fontSize: 12,
              lineHeight: 1.4,
              pointerEvents: 'none',
              fontVariantNumeric: 'tabular-nums',
            }}
          >
            <div>{position}</div>
            {view.window && <div>{formatWindowLevel(view.window)}</div>}
            <div>{`Zoom ${Math.round(view.zoom * 100)}%`}</div>
          </Box>
        )}
        {phase.status === 'loading' && (
          <Box
            role="status"
            sx={{ position: 'absolute', inset: 0, display: 'grid', placeItems: 'center', color: '#fff' }}
          >
            <Box sx={{ display: 'grid', justifyItems: 'center', gap: 1 }}>
              <CircularProgress color="inherit" size={32} aria-hidden />
              <Typography variant="body2">{phase.what}</Typography>
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
            <Alert severity="error" role="alert" data-testid="stack-error" sx={{ maxWidth: 520 }}>
              <AlertTitle>{phase.title}</AlertTitle>
              {phase.detail}
            </Alert>
          </Box>
        )}
      </Box>

      <Box
        role="group"
        aria-label="Slices"
        sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', columnGap: 2, rowGap: 1, mt: 1 }}
      >
        <IconButton
          aria-label={playing ? 'Pause' : 'Play'}
          disabled={disabled || count < 2}
          onClick={togglePlaying}
          color="primary"
        >
          {playing ? <PauseIcon /> : <PlayArrowIcon />}
        </IconButton>
        <Slider
          aria-label="Slice"
          min={0}
          max={Math.max(0, count - 1)}
          step={1}
          value={index}
          getAriaValueText={(v) => `Slice ${v + 1} of ${count}`}
          {...sliderHandlers}
          disabled={disabled || count < 2}
          sx={{ flex: '1 1 160px', minWidth: 140 }}
        />
        <Typography
          variant="body2"
          data-testid="slice-position"
          aria-live="off"
          sx={{ minWidth: 90, fontVariantNumeric: 'tabular-nums' }}
        >
          {count ? position : ''}
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
      <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
        Scroll the wheel, swipe with one finger (scroll tool) or drag with the chosen tool; pinch to zoom. Keys:{' '}
        {STACK_SHORTCUT_HELP}.
      </Typography>
    </Box>
  );
}

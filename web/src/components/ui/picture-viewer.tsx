import RestartAltIcon from '@mui/icons-material/RestartAlt';
import ZoomInIcon from '@mui/icons-material/ZoomIn';
import ZoomOutIcon from '@mui/icons-material/ZoomOut';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type WheelEvent } from 'react';

// Shared by the signed-in viewer (features/images) and the share-link page (features/external-link).

const MIN_ZOOM = 0.25;
const MAX_ZOOM = 8;
const STEP = 1.25;
const PAN_STEP = 40;

const clampZoom = (z: number) => Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, z));

/** Zoom (buttons, wheel, + / -), pan (drag, arrow keys) and reset (0) over a blob URL. */
export function PictureViewer({ url, caption }: { url: string; caption: string }) {
  const [zoom, setZoom] = useState(1);
  const [offset, setOffset] = useState({ x: 0, y: 0 });
  const drag = useRef<{ x: number; y: number; ox: number; oy: number } | null>(null);
  const stageRef = useRef<HTMLDivElement>(null);

  const reset = () => {
    setZoom(1);
    setOffset({ x: 0, y: 0 });
  };

  // React's onWheel is passive; a native listener may prevent the page from scrolling.
  useEffect(() => {
    const stage = stageRef.current;
    if (!stage) return;
    const onWheel = (event: globalThis.WheelEvent) => {
      event.preventDefault();
      setZoom((z) => clampZoom(event.deltaY < 0 ? z * 1.1 : z / 1.1));
    };
    stage.addEventListener('wheel', onWheel, { passive: false });
    return () => stage.removeEventListener('wheel', onWheel);
  }, []);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [PAN_STEP, 0],
      ArrowRight: [-PAN_STEP, 0],
      ArrowUp: [0, PAN_STEP],
      ArrowDown: [0, -PAN_STEP],
    };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      setOffset((o) => ({ x: o.x + move[0], y: o.y + move[1] }));
    } else if (event.key === '+' || event.key === '=') {
      event.preventDefault();
      setZoom((z) => clampZoom(z * STEP));
    } else if (event.key === '-') {
      event.preventDefault();
      setZoom((z) => clampZoom(z / STEP));
    } else if (event.key === '0') {
      event.preventDefault();
      reset();
    }
  }

  function onPointerDown(event: PointerEvent<HTMLDivElement>) {
    event.currentTarget.setPointerCapture(event.pointerId);
    drag.current = { x: event.clientX, y: event.clientY, ox: offset.x, oy: offset.y };
  }
  function onPointerMove(event: PointerEvent<HTMLDivElement>) {
    const start = drag.current;
    if (!start) return;
    setOffset({ x: start.ox + event.clientX - start.x, y: start.oy + event.clientY - start.y });
  }
  const endDrag = () => {
    drag.current = null;
  };

  return (
    <Stack sx={{ flexGrow: 1, minHeight: 0 }}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', px: 2, py: 1, flexWrap: 'wrap' }}>
        <Tooltip title="Zoom out (-)">
          <IconButton
            aria-label="Zoom out"
            onClick={() => setZoom((z) => clampZoom(z / STEP))}
            disabled={zoom <= MIN_ZOOM}
          >
            <ZoomOutIcon />
          </IconButton>
        </Tooltip>
        <Typography
          aria-live="polite"
          sx={{ minWidth: 56, textAlign: 'center' }}
        >{`${Math.round(zoom * 100)}%`}</Typography>
        <Tooltip title="Zoom in (+)">
          <IconButton
            aria-label="Zoom in"
            onClick={() => setZoom((z) => clampZoom(z * STEP))}
            disabled={zoom >= MAX_ZOOM}
          >
            <ZoomInIcon />
          </IconButton>
        </Tooltip>
        <Tooltip title="Reset (0)">
          <IconButton aria-label="Reset zoom and position" onClick={reset}>
            <RestartAltIcon />
          </IconButton>
        </Tooltip>
        <Typography variant="body2" color="text.secondary" sx={{ display: { xs: 'none', sm: 'block' } }}>
          Drag or use the arrow keys to move; wheel or + / - to zoom.
        </Typography>
      </Stack>
      <Box
        ref={stageRef}
        role="group"
        aria-label={`${caption}: use arrow keys to pan, plus and minus to zoom, 0 to reset`}
        tabIndex={0}
        onKeyDown={onKeyDown}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={endDrag}
        onPointerCancel={endDrag}
        onWheel={(event: WheelEvent<HTMLDivElement>) => event.stopPropagation()}
        sx={{
          flexGrow: 1,
          minHeight: 0,
          overflow: 'hidden',
          bgcolor: 'grey.900',
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'center',
          cursor: 'grab',
          touchAction: 'none',
          userSelect: 'none',
          '&:active': { cursor: 'grabbing' },
          '&:focus-visible': { outline: 3, outlineStyle: 'solid', outlineColor: 'primary.light', outlineOffset: -3 },
        }}
      >
        <img
          src={url}
          alt={caption}
          draggable={false}
          style={{
            // 100% means "fit the stage": small pictures are scaled up, large ones down.
            width: '100%',
            height: '100%',
            objectFit: 'contain',
            transform: `translate(${offset.x}px, ${offset.y}px) scale(${zoom})`,
            transformOrigin: 'center center',
          }}
        />
      </Box>
    </Stack>
  );
}

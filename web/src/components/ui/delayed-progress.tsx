import Box from '@mui/material/Box';
import CircularProgress, { type CircularProgressProps } from '@mui/material/CircularProgress';
import LinearProgress, { type LinearProgressProps } from '@mui/material/LinearProgress';
import { useEffect, useState } from 'react';

/**
 * How long a load runs before its indeterminate indicator appears. Most loads end sooner, and then
 * nothing flashes; and an indicator shown at once animates through a page's start-up, when every
 * frame it costs is taken from the page's own work (docs/architecture.md › Frontend, "Loading
 * indicators").
 */
export const PROGRESS_DELAY_MS = 500;

/** False until PROGRESS_DELAY_MS have passed since the component mounted, then true. */
function useDelayPassed(): boolean {
  const [passed, setPassed] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setPassed(true), PROGRESS_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);
  return passed;
}

type AriaProps = { 'aria-label'?: string; 'aria-hidden'?: boolean | 'true' | 'false' };

/**
 * Until the delay passes, the indicator's box and its name for assistive technology, without the
 * animation: the layout does not move when it appears, and a screen reader hears "Loading" at once.
 */
function Waiting({ aria, width, height }: { aria: AriaProps; width: number | string; height: number | string }) {
  const hidden = aria['aria-hidden'] === true || aria['aria-hidden'] === 'true';
  return (
    <Box
      role={hidden ? undefined : 'progressbar'}
      aria-label={aria['aria-label']}
      aria-hidden={hidden || undefined}
      sx={{ display: width === '100%' ? 'block' : 'inline-block', width, height }}
    />
  );
}

/**
 * MUI's indeterminate spinner, shown after PROGRESS_DELAY_MS. `disableShrink`: only the arc's
 * rotation, which the compositor runs on its own; the default also animates the circle's
 * `stroke-dasharray`, which Chromium cannot composite and so restyles and repaints on the main
 * thread every frame.
 */
export function DelayedCircularProgress({ size = 40, ...props }: Omit<CircularProgressProps, 'variant' | 'value'>) {
  const shown = useDelayPassed();
  if (!shown) return <Waiting aria={props} width={size} height={size} />;
  return <CircularProgress disableShrink size={size} {...props} />;
}

/** MUI's indeterminate bar, shown after PROGRESS_DELAY_MS; its 4 px are kept meanwhile. */
export function DelayedLinearProgress(props: Omit<LinearProgressProps, 'variant' | 'value' | 'valueBuffer'>) {
  const shown = useDelayPassed();
  if (!shown) return <Waiting aria={props} width="100%" height={4} />;
  return <LinearProgress {...props} />;
}

import Box from '@mui/material/Box';
import { DelayedCircularProgress } from './delayed-progress';

/** Shown while a lazily loaded page arrives; usually for a few milliseconds, so its spinner waits (delayed-progress.tsx). */
export function RouteFallback() {
  return (
    <Box sx={{ display: 'grid', placeItems: 'center', minHeight: '40vh' }}>
      <DelayedCircularProgress aria-label="Loading page" />
    </Box>
  );
}

import Box from '@mui/material/Box';
import type { ReactNode } from 'react';

/**
 * A wide table scrolls sideways inside this box instead of widening the page (390 px phones).
 * It is focusable and named so keyboard users can scroll it too (axe: scrollable-region-focusable).
 */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box
      role="region"
      aria-label={label}
      tabIndex={0}
      sx={{
        overflowX: 'auto',
        // Positioned, so visually hidden text (position: absolute) inside the table stays clipped in here.
        position: 'relative',
        width: '100%',
        '&:focus-visible': { outline: '2px solid', outlineColor: 'primary.main', outlineOffset: 2 },
      }}
    >
      {children}
    </Box>
  );
}

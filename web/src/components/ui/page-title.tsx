import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { site } from '../../config/site';

/** The document title and the page's one h1, sized like the other signed-in pages. */
export function PageTitle({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <>
      <title>{`${title} · ${site.name}`}</title>
      <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 }, mb: children ? 1 : 3 }}>
        {title}
      </Typography>
      {children && (
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          {children}
        </Typography>
      )}
    </>
  );
}

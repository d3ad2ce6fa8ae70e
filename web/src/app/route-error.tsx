import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { Component, type ReactNode } from 'react';
import { useLocation, useRoutes, type RouteObject } from 'react-router';

/**
 * Last resort for a page that failed to render or to load. The usual cause is a new release
 * replacing the script files a tab still refers to; reloading fetches the current ones.
 */
export function RouteError({ error }: { error: unknown }) {
  if (import.meta.env.DEV) console.error(error);
  return (
    <Box role="alert" sx={{ minHeight: '60vh', display: 'grid', placeItems: 'center', p: 3, textAlign: 'center' }}>
      <Box>
        <Typography variant="h4" component="h1" sx={{ mb: 1 }}>
          Something went wrong
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          This page could not be shown. Reload to try again.
        </Typography>
        <Button variant="contained" onClick={() => window.location.reload()}>
          Reload
        </Button>
      </Box>
    </Box>
  );
}

type BoundaryState = { failed: boolean; error: unknown; locationKey: string };

/**
 * Shows RouteError in place of the pages when one throws while rendering or loading, until the
 * location changes (a link, Back or Forward, a new query), as the data router's `errorElement` did;
 * the app uses React Router's declarative mode (docs/decisions.md › Routing without the data router).
 */
class RouteErrorBoundary extends Component<{ locationKey: string; children: ReactNode }, BoundaryState> {
  override state: BoundaryState = { failed: false, error: undefined, locationKey: this.props.locationKey };

  static getDerivedStateFromError(error: unknown): Partial<BoundaryState> {
    return { failed: true, error };
  }

  // Another location is another render: give it its chance.
  static getDerivedStateFromProps(props: { locationKey: string }, state: BoundaryState): Partial<BoundaryState> | null {
    return props.locationKey === state.locationKey
      ? null
      : { failed: false, error: undefined, locationKey: props.locationKey };
  }

  override render() {
    return this.state.failed ? <RouteError error={this.state.error} /> : this.props.children;
  }
}

/**
 * `routes` within the caller's router (BrowserRouter in the app, MemoryRouter in tests), behind the
 * boundary that shows RouteError when a page fails.
 */
export function RoutesWithBoundary({ routes }: { routes: RouteObject[] }) {
  const { key } = useLocation();
  return <RouteErrorBoundary locationKey={key}>{useRoutes(routes)}</RouteErrorBoundary>;
}

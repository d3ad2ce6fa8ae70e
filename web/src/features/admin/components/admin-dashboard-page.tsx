import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { AdminSummary } from '@medshare/contracts';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../../config/paths';
import { site } from '../../../config/site';
import { usePublicSettings } from '../../../lib/public-settings';
import { useAdminSummary } from '../hooks/use-admin-summary';
import { PendingProviders } from './pending-providers';
import { UploadsChart } from './uploads-chart';
import { dateTimeFormat } from '../../../lib/date-time-format';

function Widget({ id, title, aside, children }: { id: string; title: string; aside?: ReactNode; children: ReactNode }) {
  return (
    <Card component="section" aria-labelledby={id} sx={{ p: { xs: 2, sm: 3 }, minWidth: 0 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1.5, flexWrap: 'wrap' }}>
        <Typography id={id} variant="h6" component="h2" sx={{ flexGrow: 1 }}>
          {title}
        </Typography>
        {aside}
      </Box>
      {children}
    </Card>
  );
}

function Figures({ summary }: { summary: AdminSummary }) {
  const { patient, healthProvider, admin } = summary.usersByRole;
  // The role counts include deactivated and pending accounts: the first figure says how they add up.
  const accounts = patient + healthProvider + admin;
  const figures: Array<{ label: string; value: number; detail?: string }> = [
    { label: 'Active users', value: summary.activeUsers, detail: `of ${accounts.toLocaleString()} accounts` },
    { label: 'Patients', value: summary.usersByRole.patient },
    { label: 'Health providers', value: summary.usersByRole.healthProvider },
    { label: 'Admins', value: summary.usersByRole.admin },
  ];
  return (
    <Box
      component="dl"
      sx={{ m: 0, display: 'grid', gap: 2, gridTemplateColumns: { xs: 'repeat(2, 1fr)', sm: 'repeat(4, 1fr)' } }}
    >
      {figures.map((f) => (
        <Card key={f.label} sx={{ p: 2 }}>
          <Typography component="dt" sx={{ color: 'text.secondary', fontSize: 14, fontWeight: 600 }}>
            {f.label}
          </Typography>
          <Typography component="dd" sx={{ m: 0, fontSize: 26, fontWeight: 800 }}>
            {f.value.toLocaleString()}
          </Typography>
          {f.detail && (
            <Typography component="dd" sx={{ m: 0, color: 'text.secondary', fontSize: 13 }}>
              {f.detail}
            </Typography>
          )}
        </Card>
      ))}
    </Box>
  );
}

export function AdminDashboardPage() {
  const { summary, status, reload } = useAdminSummary();
  const { displayLocale, displayTimeZone } = usePublicSettings();
  const formatInstant = (iso: string) => {
    try {
      return dateTimeFormat(displayLocale, { dateStyle: 'medium', timeZone: displayTimeZone }).format(new Date(iso));
    } catch {
      return new Date(iso).toLocaleDateString();
    }
  };
  const uploadsTotal = summary?.uploadsPerDay.reduce((sum, d) => sum + d.count, 0) ?? 0;

  return (
    <Stack spacing={3}>
      <title>{`Admin Dashboard · ${site.name}`}</title>
      <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 } }}>
        Secure Medical Image Sharing Dashboard
      </Typography>

      {status === 'forbidden' && <Alert severity="info">This dashboard is for administrators.</Alert>}
      {status === 'error' && (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={reload}>
              Retry
            </Button>
          }
        >
          The summary could not be loaded.
        </Alert>
      )}
      {status === 'loading' && (
        <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
          <Skeleton variant="rounded" height={280} />
          <Skeleton variant="rounded" height={280} />
        </Box>
      )}
      {summary && status !== 'forbidden' && (
        <>
          <Figures summary={summary} />
          <Box
            sx={{
              display: 'grid',
              gap: 3,
              alignItems: 'start',
              gridTemplateColumns: { xs: '1fr', md: 'minmax(0, 5fr) minmax(0, 7fr)' },
            }}
          >
            <Widget
              id="pending-heading"
              title="Providers awaiting activation"
              aside={
                <Chip
                  label={`${summary.pendingProviders.count} waiting`}
                  size="small"
                  sx={
                    summary.pendingProviders.count > 0 ? { bgcolor: 'warning.dark', color: 'common.white' } : undefined
                  }
                />
              }
            >
              <PendingProviders
                count={summary.pendingProviders.count}
                items={summary.pendingProviders.items}
                formatDate={formatInstant}
              />
            </Widget>
            <Widget
              id="uploads-heading"
              title="Uploads per day"
              aside={
                <Typography sx={{ color: 'text.secondary', fontSize: 14 }}>
                  Last 14 days · {uploadsTotal.toLocaleString()} in total
                </Typography>
              }
            >
              {summary.uploadsAvailable ? (
                <UploadsChart days={summary.uploadsPerDay} locale={displayLocale} captionId="uploads-heading" />
              ) : (
                <Alert severity="info">Upload counts are not available yet.</Alert>
              )}
            </Widget>
          </Box>
          <Typography sx={{ color: 'text.secondary', fontSize: 14 }}>
            Every account, including deactivated ones, is managed from the users table on the{' '}
            <Link component={RouterLink} to={paths.dashboard} underline="always">
              Dashboard
            </Link>
            .
          </Typography>
        </>
      )}
    </Stack>
  );
}

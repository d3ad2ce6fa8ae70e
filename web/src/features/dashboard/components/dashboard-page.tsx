import InsightsIcon from '@mui/icons-material/Insights';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../../config/paths';
import { site } from '../../../config/site';
import { selectUser } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { useGetStatsQuery } from '../api/get-stats';
import { StatCards } from './stat-cards';
import { UsersTable } from './users-table';
import { WelcomeLine } from './welcome-line';

export function DashboardPage() {
  const user = useAppSelector(selectUser);
  // A failed count is not worth a toast on the landing screen: the cards then read '—'.
  // Counts move with everyone's uploads and shares: read again each time the dashboard opens.
  const { data: stats, isLoading: loading } = useGetStatsQuery(undefined, { refetchOnMountOrArgChange: true });
  if (!user) return null;

  return (
    <Stack spacing={3}>
      <title>{`Dashboard · ${site.name}`}</title>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'center', justifyContent: 'space-between' }}>
        <WelcomeLine user={user} />
        {user.role === 'admin' && (
          <Button component={RouterLink} to={paths.adminDashboard} variant="outlined" startIcon={<InsightsIcon />}>
            Admin Dashboard
          </Button>
        )}
      </Box>
      <StatCards stats={stats ?? null} loading={loading} role={user.role} />
      <UsersTable viewer={user} />
    </Stack>
  );
}

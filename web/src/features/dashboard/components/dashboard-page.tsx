import InsightsIcon from '@mui/icons-material/Insights';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../../config/paths';
import { site } from '../../../config/site';
import { selectUser } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { useStats } from '../hooks/use-stats';
import { StatCards } from './stat-cards';
import { UsersTable } from './users-table';
import { WelcomeLine } from './welcome-line';

export function DashboardPage() {
  const user = useAppSelector(selectUser);
  const { stats, loading, reload } = useStats();
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
      <StatCards stats={stats} loading={loading} />
      <UsersTable viewer={user} onChanged={reload} />
    </Stack>
  );
}

import CollectionsIcon from '@mui/icons-material/Collections';
import GroupIcon from '@mui/icons-material/Group';
import ShareIcon from '@mui/icons-material/Share';
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import type { DashboardStats, RoleName } from '@medshare/contracts';
import type { ReactNode } from 'react';

type StatCardProps = { label: string; value: number | null; icon: ReactNode; note?: string; loading: boolean };

function StatCard({ label, value, icon, note, loading }: StatCardProps) {
  return (
    <Card component="section" aria-label={label} sx={{ p: 2.5, display: 'flex', gap: 2, alignItems: 'center' }}>
      <Box
        aria-hidden
        sx={{
          width: 48,
          height: 48,
          borderRadius: 2,
          display: 'grid',
          placeItems: 'center',
          bgcolor: 'primary.main',
          color: 'primary.contrastText',
          flexShrink: 0,
        }}
      >
        {icon}
      </Box>
      <Box sx={{ minWidth: 0 }}>
        <Typography component="h2" sx={{ color: 'text.secondary', fontWeight: 600, fontSize: 14 }}>
          {label}
        </Typography>
        {loading ? (
          <Skeleton width={60} height={36} />
        ) : (
          <Typography sx={{ fontSize: 28, fontWeight: 800, lineHeight: 1.3 }}>
            {value === null ? '—' : value.toLocaleString()}
          </Typography>
        )}
        {/* Shown while the count loads too: it is known from the role, and its line coming in later pushed the page down. */}
        {note && <Typography sx={{ color: 'text.secondary', fontSize: 12 }}>{note}</Typography>}
      </Box>
    </Card>
  );
}

/**
 * What each count holds, as the server counts it (images.service stats): an admin's over every
 * image, anyone else's over their own uploads and what was shared with them. Without it a provider
 * who had shared eight images read 'Shared Images 0' as a fault.
 */
export function statNotes(role: RoleName): { total: string; shared: string; users: string } {
  if (role === 'admin') {
    return { total: 'All images', shared: 'Images with a live share', users: 'All accounts' };
  }
  return {
    total: 'Your uploads and images shared with you',
    shared: 'Shared with you by others',
    // users.service visibleTo: providers count patients and providers, patients their care team.
    users: role === 'patient' ? 'Providers and administrators' : 'Active patients and providers',
  };
}

/** The three dashboard counts. Image counts read '—' while the server cannot provide them. */
export function StatCards({
  stats,
  loading,
  role,
}: {
  stats: DashboardStats | null;
  loading: boolean;
  role: RoleName;
}) {
  const images = stats?.imageStatsAvailable ?? false;
  const unavailable = stats && !images ? 'Not available yet' : undefined;
  const notes = statNotes(role);
  return (
    <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: 'repeat(3, 1fr)' } }}>
      <StatCard
        label="Total Images"
        value={stats && images ? stats.totalImages : null}
        note={unavailable ?? notes.total}
        icon={<CollectionsIcon />}
        loading={loading}
      />
      <StatCard
        label="Shared Images"
        value={stats && images ? stats.sharedImages : null}
        note={unavailable ?? notes.shared}
        icon={<ShareIcon />}
        loading={loading}
      />
      <StatCard
        label="Total Users"
        value={stats ? stats.totalUsers : null}
        note={notes.users}
        icon={<GroupIcon />}
        loading={loading}
      />
    </Box>
  );
}

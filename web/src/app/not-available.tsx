import LockOutlinedIcon from '@mui/icons-material/LockOutlined';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { RoleName } from '@medshare/contracts';
import { Link as RouterLink } from 'react-router';
import { startPageFor, startPageLabel } from '../components/layout/page-access';
import { site } from '../config/site';
import { roleLabel } from '../lib/roles';

/** In place of a signed-in page the role may not use: says so, instead of a form the server would refuse. */
export function NotAvailable({ role }: { role: RoleName | undefined }) {
  const who = role ? `a ${roleLabel(role)} account` : 'your account';
  return (
    <>
      <title>{`Not available for your role · ${site.name}`}</title>
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center', maxWidth: 640, mx: 'auto' }}>
        <LockOutlinedIcon color="primary" sx={{ fontSize: 44, mb: 1 }} aria-hidden />
        <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 22, sm: 28 }, mb: 1 }}>
          Not available for your role
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          This page is not part of what {who} can do. The menu shows the pages you can use; an administrator can tell
          you more.
        </Typography>
        <Button component={RouterLink} to={startPageFor(role)} variant="contained">
          Go to {startPageLabel(role)}
        </Button>
      </Paper>
    </>
  );
}

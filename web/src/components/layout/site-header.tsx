import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import Toolbar from '@mui/material/Toolbar';
import { Link as RouterLink } from 'react-router';
import { Logo } from '../ui/logo';
import { paths } from '../../config/paths';
import { site } from '../../config/site';

/** Top bar of the public pages (landing, share demo). */
export function SiteHeader() {
  return (
    <AppBar
      position="sticky"
      color="inherit"
      sx={{ bgcolor: 'rgba(255,255,255,0.92)', backdropFilter: 'blur(8px)', borderBottom: 1, borderColor: 'divider' }}
    >
      <Container maxWidth="lg">
        <Toolbar disableGutters sx={{ gap: 1 }}>
          <Link component={RouterLink} to={paths.home} aria-label={`${site.name} home`} sx={{ display: 'inline-flex' }}>
            <Logo size={32} />
          </Link>
          <Box sx={{ flexGrow: 1 }} />
          <Button component={RouterLink} to={paths.login} color="primary">
            Login
          </Button>
          <Button component={RouterLink} to={paths.register} variant="contained">
            Register
          </Button>
        </Toolbar>
      </Container>
    </AppBar>
  );
}

import LogoutIcon from '@mui/icons-material/Logout';
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
import { selectToken, selectUser } from '../../lib/session';
import { useAppSelector } from '../../lib/store';
import { useLogoutAction } from './logout-context';
import { startPageFor, startPageLabel } from './page-access';

/** Top bar of the public pages (landing, share demo): Login/Register, or the way back into the app. */
export function SiteHeader() {
  const token = useAppSelector(selectToken);
  const user = useAppSelector(selectUser);
  const logoutAction = useLogoutAction();

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
          {token ? (
            <>
              <Button
                component={RouterLink}
                to={startPageFor(user?.role)}
                variant="contained"
                sx={{ whiteSpace: 'nowrap' }}
              >
                {startPageLabel(user?.role)}
              </Button>
              {logoutAction && (
                // Icon only on a phone: the logo, the way back in and the word Logout do not fit on one line.
                <Button
                  variant="outlined"
                  startIcon={<LogoutIcon />}
                  onClick={logoutAction.logout}
                  disabled={logoutAction.loggingOut}
                  aria-label="Logout"
                  sx={{
                    minWidth: 0,
                    px: { xs: 1.25, sm: 2 },
                    '& .MuiButton-startIcon': { ml: { xs: 0, sm: -0.5 }, mr: { xs: 0, sm: 1 } },
                  }}
                >
                  <Box component="span" sx={{ display: { xs: 'none', sm: 'inline' } }}>
                    Logout
                  </Box>
                </Button>
              )}
            </>
          ) : (
            <>
              <Button component={RouterLink} to={paths.login} color="primary">
                Login
              </Button>
              <Button component={RouterLink} to={paths.register} variant="contained">
                Register
              </Button>
            </>
          )}
        </Toolbar>
      </Container>
    </AppBar>
  );
}

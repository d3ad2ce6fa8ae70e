import LogoutIcon from '@mui/icons-material/Logout';
import MenuIcon from '@mui/icons-material/Menu';
import AppBar from '@mui/material/AppBar';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import Drawer from '@mui/material/Drawer';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { User } from '@medshare/contracts';
import { useState, type ReactNode } from 'react';
import { NavLink } from 'react-router';
import { Logo } from '../ui/logo';
import { DESKTOP_MIN_WIDTH } from '../../config/constants';
import { roleLabel } from '../../lib/roles';
import { getNavItems, type NavVariant } from './nav-items';

const DRAWER_WIDTH = 248;

type AppShellProps = {
  user: User | null;
  onLogout: () => void;
  loggingOut?: boolean;
  children: ReactNode;
};

function initials(user: User | null): string {
  if (!user) return '?';
  return `${user.firstname.charAt(0)}${user.lastname.charAt(0)}`.toUpperCase() || '?';
}

function SideMenu({ user, variant, onNavigate }: { user: User | null; variant: NavVariant; onNavigate?: () => void }) {
  const items = getNavItems(user?.role, variant);
  return (
    <Box component="nav" aria-label="Main menu" sx={{ px: 1.5, py: 2 }}>
      <List disablePadding sx={{ display: 'grid', gap: 0.5 }}>
        {items.map((item) => (
          <li key={item.to}>
            <ListItemButton component={NavLink} to={item.to} end={item.to === '/'} onClick={onNavigate} sx={{ py: 1 }}>
              <ListItemIcon sx={{ minWidth: 38, color: 'text.secondary' }}>{item.icon}</ListItemIcon>
              <ListItemText primary={item.label} slotProps={{ primary: { sx: { fontWeight: 600, fontSize: 15 } } }} />
            </ListItemButton>
          </li>
        ))}
      </List>
    </Box>
  );
}

/** Frame of every signed-in page: top bar with Logout, side menu (a drawer below 1024 px). */
export function AppShell({ user, onLogout, loggingOut, children }: AppShellProps) {
  const isDesktop = useMediaQuery(`(min-width:${DESKTOP_MIN_WIDTH}px)`, { noSsr: true });
  const [mobileOpen, setMobileOpen] = useState(false);

  return (
    <Box sx={{ display: 'flex', minHeight: '100vh', bgcolor: 'background.default' }}>
      <AppBar
        position="fixed"
        color="inherit"
        sx={{
          zIndex: (theme) => theme.zIndex.drawer + 1,
          borderBottom: 1,
          borderColor: 'divider',
          bgcolor: 'background.paper',
        }}
      >
        <Toolbar sx={{ gap: 1.5 }}>
          {!isDesktop && (
            <IconButton
              edge="start"
              aria-label="Open menu"
              // The menu is in the page only while open (see the Drawer below).
              aria-controls={mobileOpen ? 'app-side-menu' : undefined}
              aria-expanded={mobileOpen}
              onClick={() => setMobileOpen(true)}
            >
              <MenuIcon />
            </IconButton>
          )}
          <Logo size={30} />
          <Box sx={{ flexGrow: 1 }} />
          {user && (
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25, mr: { xs: 0, sm: 1 } }}>
              <Avatar sx={{ width: 34, height: 34, bgcolor: 'primary.main', fontSize: 14, fontWeight: 700 }}>
                {initials(user)}
              </Avatar>
              {/* A long name is cut with an ellipsis (the whole name in its title) rather than filling the bar. */}
              <Box sx={{ display: { xs: 'none', sm: 'block' }, lineHeight: 1.2, minWidth: 0, maxWidth: 280 }}>
                <Typography noWrap title={`${user.firstname} ${user.lastname}`} sx={{ fontWeight: 600, fontSize: 14 }}>
                  {user.firstname} {user.lastname}
                </Typography>
                <Typography sx={{ color: 'text.secondary', fontSize: 12 }}>{roleLabel(user.role)}</Typography>
              </Box>
            </Box>
          )}
          <Button
            variant="outlined"
            color="primary"
            startIcon={<LogoutIcon />}
            onClick={onLogout}
            disabled={loggingOut}
          >
            Logout
          </Button>
        </Toolbar>
      </AppBar>

      {isDesktop ? (
        <Drawer
          variant="permanent"
          sx={{
            width: DRAWER_WIDTH,
            flexShrink: 0,
            // The paper is fixed at the window's height; the column under it (as tall as the page)
            // carries the same colour and border, so a page longer than the window (a full-page
            // capture, print) shows one unbroken sidebar.
            alignSelf: 'stretch',
            bgcolor: 'background.paper',
            borderRight: 1,
            borderColor: 'divider',
            '& .MuiDrawer-paper': { width: DRAWER_WIDTH, boxSizing: 'border-box', borderColor: 'divider' },
          }}
        >
          <Toolbar />
          <SideMenu user={user} variant="desktop" />
        </Drawer>
      ) : (
        // Mounted only while open: kept mounted (MUI's demo default), its closed Slide measured the
        // whole page with a forced layout on every signed-in load below 1024 px (70-95 ms of this
        // machine's main thread in a CPU profile of View Images; Lighthouse's phone is 4x slower).
        <Drawer
          id="app-side-menu"
          variant="temporary"
          open={mobileOpen}
          onClose={() => setMobileOpen(false)}
          slotProps={{ paper: { 'aria-label': 'Menu' } }}
          sx={{ '& .MuiDrawer-paper': { width: DRAWER_WIDTH, boxSizing: 'border-box' } }}
        >
          <Toolbar>
            <Logo size={28} />
          </Toolbar>
          <Divider />
          <SideMenu user={user} variant="mobile" onNavigate={() => setMobileOpen(false)} />
        </Drawer>
      )}

      <Box component="main" sx={{ flexGrow: 1, minWidth: 0, p: { xs: 2, sm: 3, md: 4 } }}>
        <Toolbar />
        {children}
      </Box>
    </Box>
  );
}

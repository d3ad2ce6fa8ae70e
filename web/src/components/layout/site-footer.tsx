import EmailIcon from '@mui/icons-material/Email';
import LocationOnIcon from '@mui/icons-material/LocationOn';
import PhoneIcon from '@mui/icons-material/Phone';
import ScheduleIcon from '@mui/icons-material/Schedule';
import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Divider from '@mui/material/Divider';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { Logo } from '../ui/logo';
import { paths } from '../../config/paths';
import { site } from '../../config/site';
import { selectToken, selectUser } from '../../lib/session';
import { useAppSelector } from '../../lib/store';
import { startPageFor, startPageLabel } from './page-access';

const linkSx = { color: 'rgba(255,255,255,0.82)', '&:hover': { color: '#fff' } } as const;

function FooterHeading({ children }: { children: ReactNode }) {
  return (
    <Typography
      component="h2"
      sx={{
        fontSize: 13,
        fontWeight: 700,
        letterSpacing: '0.08em',
        textTransform: 'uppercase',
        color: '#9cc3ea',
        mb: 2,
      }}
    >
      {children}
    </Typography>
  );
}

function ContactLine({ icon, children }: { icon: ReactNode; children: ReactNode }) {
  return (
    <Box sx={{ display: 'flex', gap: 1.25, alignItems: 'flex-start', color: 'rgba(255,255,255,0.82)' }}>
      <Box sx={{ mt: '2px', display: 'inline-flex', '& svg': { fontSize: 18 } }} aria-hidden>
        {icon}
      </Box>
      <Typography variant="body2" component="span">
        {children}
      </Typography>
    </Box>
  );
}

/** Footer of the public pages: static contact details, links and developer credits. */
export function SiteFooter() {
  const year = new Date().getFullYear();
  // Signed in: the way back into the app instead of the sign-in and registration links.
  const signedIn = Boolean(useAppSelector(selectToken));
  const role = useAppSelector(selectUser)?.role;
  return (
    <Box component="footer" sx={{ bgcolor: '#06284c', color: 'common.white', pt: { xs: 6, md: 8 }, pb: 4 }}>
      <Container maxWidth="lg">
        <Box
          sx={{
            display: 'grid',
            gap: { xs: 5, md: 6 },
            gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', md: '1.4fr 1fr 1.3fr' },
          }}
        >
          <Box>
            <Logo tone="light" size={34} />
            <Typography variant="body2" sx={{ mt: 2, color: 'rgba(255,255,255,0.75)', maxWidth: 340 }}>
              {site.tagline} for patients, health providers and administrators — encrypted, access-controlled and fully
              audited.
            </Typography>
          </Box>
          <Box component="nav" aria-label="Footer">
            <FooterHeading>Explore</FooterHeading>
            <Stack spacing={1.25}>
              <Link component={RouterLink} to={paths.shareImage} sx={linkSx}>
                Share demo
              </Link>
              {signedIn ? (
                <Link component={RouterLink} to={startPageFor(role)} sx={linkSx}>
                  {startPageLabel(role)}
                </Link>
              ) : (
                <>
                  <Link component={RouterLink} to={paths.login} sx={linkSx}>
                    Login
                  </Link>
                  <Link component={RouterLink} to={paths.register} sx={linkSx}>
                    Create an account
                  </Link>
                  <Link component={RouterLink} to={paths.forgotPassword} sx={linkSx}>
                    Reset your password
                  </Link>
                </>
              )}
            </Stack>
          </Box>
          <Box>
            <FooterHeading>Contact</FooterHeading>
            <Stack spacing={1.5}>
              <ContactLine icon={<EmailIcon />}>
                <Link href={`mailto:${site.contact.email}`} sx={linkSx}>
                  {site.contact.email}
                </Link>
              </ContactLine>
              <ContactLine icon={<PhoneIcon />}>{site.contact.phone}</ContactLine>
              <ContactLine icon={<LocationOnIcon />}>{site.contact.address}</ContactLine>
              <ContactLine icon={<ScheduleIcon />}>{site.contact.hours}</ContactLine>
            </Stack>
          </Box>
        </Box>
        <Divider sx={{ borderColor: 'rgba(255,255,255,0.14)', my: 4 }} />
        <Box
          sx={{
            display: 'flex',
            flexDirection: { xs: 'column', sm: 'row' },
            gap: 1,
            justifyContent: 'space-between',
            color: 'rgba(255,255,255,0.7)',
          }}
        >
          <Typography variant="body2">
            © {year} {site.name}. All rights reserved.
          </Typography>
          <Typography variant="body2">{site.credits}</Typography>
        </Box>
      </Container>
    </Box>
  );
}

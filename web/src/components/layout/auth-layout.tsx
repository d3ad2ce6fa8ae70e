import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { Logo } from '../ui/logo';
import { paths } from '../../config/paths';
import { site } from '../../config/site';

type AuthLayoutProps = {
  title: string;
  subtitle?: ReactNode;
  /** Document title; defaults to the heading. */
  pageTitle?: string;
  /** Wider card for the registration wizard. */
  wide?: boolean;
  children: ReactNode;
};

const points = [
  'Images encrypted in transit and at rest',
  'Two-step sign-in with an e-mailed code',
  'Every access written to a tamper-evident audit trail',
];

/** Sign-in screens: a brand panel beside the form on desktop, the form alone on a phone. */
export function AuthLayout({ title, subtitle, pageTitle, wide, children }: AuthLayoutProps) {
  return (
    <Box
      sx={{
        minHeight: '100vh',
        display: 'grid',
        gridTemplateColumns: { xs: '1fr', md: 'minmax(380px, 5fr) 7fr' },
        bgcolor: 'background.default',
      }}
    >
      <title>{`${pageTitle ?? title} · ${site.name}`}</title>
      <Box
        component="aside"
        sx={{
          display: { xs: 'none', md: 'flex' },
          flexDirection: 'column',
          justifyContent: 'space-between',
          p: 6,
          color: 'common.white',
          background: 'linear-gradient(155deg, #0b5cad 0%, #073f78 55%, #052c55 100%)',
          position: 'relative',
          overflow: 'hidden',
        }}
      >
        <Link component={RouterLink} to={paths.home} aria-label={`${site.name} home`} sx={{ alignSelf: 'flex-start' }}>
          <Logo tone="light" size={36} />
        </Link>
        <Box sx={{ position: 'relative', zIndex: 1, maxWidth: 440 }}>
          <Typography variant="h3" component="p" sx={{ fontSize: 34, lineHeight: 1.2, mb: 2 }}>
            Medical images, shared with the people who need them — and no one else.
          </Typography>
          <Stack spacing={1.5} component="ul" sx={{ listStyle: 'none', p: 0, m: 0 }}>
            {points.map((point) => (
              <Box component="li" key={point} sx={{ display: 'flex', gap: 1.25, alignItems: 'center' }}>
                <CheckCircleIcon fontSize="small" sx={{ color: '#7fd3c9' }} aria-hidden />
                <Typography sx={{ color: 'rgba(255,255,255,0.9)' }}>{point}</Typography>
              </Box>
            ))}
          </Stack>
        </Box>
        <Typography variant="body2" sx={{ color: 'rgba(255,255,255,0.7)', position: 'relative', zIndex: 1 }}>
          © {new Date().getFullYear()} {site.name} · {site.tagline}
        </Typography>
        <Box
          aria-hidden
          sx={{
            position: 'absolute',
            right: -120,
            top: '30%',
            width: 420,
            height: 420,
            borderRadius: '50%',
            border: '60px solid rgba(255,255,255,0.05)',
          }}
        />
      </Box>
      <Box
        component="main"
        sx={{
          display: 'flex',
          flexDirection: 'column',
          alignItems: 'center',
          // On a phone the card starts at the top: centred, it moved down the screen while a slow link
          // was still delivering the page (the login page is drawn as its HTML arrives; CLS 0.06–0.09).
          justifyContent: { xs: 'flex-start', md: 'center' },
          px: { xs: 2, sm: 4 },
          py: { xs: 3, sm: 6 },
        }}
      >
        <Box sx={{ display: { xs: 'block', md: 'none' }, alignSelf: 'flex-start', mb: 3 }}>
          <Link component={RouterLink} to={paths.home} aria-label={`${site.name} home`}>
            <Logo size={30} />
          </Link>
        </Box>
        <Paper
          variant="outlined"
          sx={{
            width: '100%',
            maxWidth: wide ? 760 : 460,
            p: { xs: 3, sm: 5 },
            borderColor: 'divider',
            boxShadow: '0 12px 40px rgba(15, 39, 64, 0.06)',
          }}
        >
          <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 28 }, mb: subtitle ? 1 : 3 }}>
            {title}
          </Typography>
          {subtitle && (
            <Typography color="text.secondary" sx={{ mb: 3 }}>
              {subtitle}
            </Typography>
          )}
          {children}
        </Paper>
      </Box>
    </Box>
  );
}

import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import ArrowForwardIcon from '@mui/icons-material/ArrowForward';
import CheckIcon from '@mui/icons-material/Check';
import CloudUploadIcon from '@mui/icons-material/CloudUpload';
import EnhancedEncryptionIcon from '@mui/icons-material/EnhancedEncryption';
import ForumIcon from '@mui/icons-material/Forum';
import HistoryEduIcon from '@mui/icons-material/HistoryEdu';
import LocalHospitalIcon from '@mui/icons-material/LocalHospital';
import PersonIcon from '@mui/icons-material/Person';
import PinIcon from '@mui/icons-material/Pin';
import ShareIcon from '@mui/icons-material/Share';
import VerifiedUserIcon from '@mui/icons-material/VerifiedUser';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Container from '@mui/material/Container';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { SiteFooter } from '../../../components/layout/site-footer';
import { startPageFor, startPageLabel } from '../../../components/layout/page-access';
import { SiteHeader } from '../../../components/layout/site-header';
import { paths } from '../../../config/paths';
import { site } from '../../../config/site';
import { useReplacePrerendered } from '../../../lib/prerendered';
import { selectToken, selectUser } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { HeroIllustration } from './hero-illustration';

type Pledge = { title: string; text: string; icon: ReactNode };

// The four promises of `docs/product.md` › Purpose and people; each names the mechanism that keeps it
// (`docs/architecture.md` › Images, Roles and permissions, Audit trail, Messages).
const promises: Pledge[] = [
  {
    title: 'Encryption in transit and at rest',
    text: 'Images travel over TLS and are stored with AES-256-GCM, every file under its own key, with an integrity check on every read.',
    icon: <EnhancedEncryptionIcon />,
  },
  {
    title: 'Role-based access',
    text: 'Patients, health providers and administrators each see only what their role allows. A shared image unlocks only with the code sent to its recipient.',
    icon: <VerifiedUserIcon />,
  },
  {
    title: 'Audit trails',
    text: 'Sign-ins, uploads, views and shares are written to an append-only, hash-chained audit log that administrators can verify at any time.',
    icon: <HistoryEduIcon />,
  },
  {
    title: 'Secure messaging',
    text: 'Discuss a study with your care team in direct messages that are encrypted at rest and shared only between the two people talking.',
    icon: <ForumIcon />,
  },
];

const figures = [
  { value: '500K+', label: 'Secure uploads' },
  { value: '24/7', label: 'Access to your images' },
  { value: '1M+', label: 'Images shared' },
];

const steps = [
  {
    title: 'Upload',
    text: 'A health provider uploads an X-ray, scan, report or DICOM study and assigns it to the patient.',
    icon: <CloudUploadIcon />,
  },
  {
    title: 'Share',
    text: 'Share it with a colleague or the patient. The recipient receives a sharing id and a one-time code.',
    icon: <ShareIcon />,
  },
  {
    title: 'Verify and view',
    text: 'The recipient enters the code to unlock the image, for as long as the share is valid.',
    icon: <PinIcon />,
  },
];

const audiences = [
  {
    title: 'Patients',
    icon: <PersonIcon />,
    points: ['See the images your care team shares', 'Unlock each one with your own code', 'Message your providers'],
  },
  {
    title: 'Health providers',
    icon: <LocalHospitalIcon />,
    points: [
      'Upload JPEG, PNG, PDF and DICOM',
      'Share with colleagues for a limited time',
      'Get a technical AI summary of a study',
    ],
  },
  {
    title: 'Administrators',
    icon: <AdminPanelSettingsIcon />,
    points: [
      'Review and activate provider accounts',
      'Manage roles and application settings',
      'Read the full audit trail',
    ],
  },
];

function SectionHeading({ id, overline, title, text }: { id: string; overline: string; title: string; text?: string }) {
  return (
    <Box sx={{ textAlign: 'center', maxWidth: 720, mx: 'auto', mb: { xs: 5, md: 7 } }}>
      <Typography variant="overline" color="secondary" component="p">
        {overline}
      </Typography>
      <Typography id={id} variant="h3" component="h2" sx={{ fontSize: { xs: 28, md: 38 }, mb: text ? 2 : 0 }}>
        {title}
      </Typography>
      {text && (
        <Typography color="text.secondary" sx={{ fontSize: 18 }}>
          {text}
        </Typography>
      )}
    </Box>
  );
}

function IconBadge({ children, tone = 'primary' }: { children: ReactNode; tone?: 'primary' | 'secondary' }) {
  return (
    <Box
      aria-hidden
      sx={{
        width: 48,
        height: 48,
        borderRadius: 3,
        display: 'grid',
        placeItems: 'center',
        color: `${tone}.main`,
        bgcolor: tone === 'primary' ? 'rgba(11, 92, 173, 0.09)' : 'rgba(14, 138, 126, 0.1)',
      }}
    >
      {children}
    </Box>
  );
}

export function LandingPage() {
  useReplacePrerendered();
  const signedIn = Boolean(useAppSelector(selectToken));
  const role = useAppSelector(selectUser)?.role;
  // A signed-in visitor is offered the way back into the app, not a new account.
  const backIntoApp = (
    <Button
      component={RouterLink}
      to={startPageFor(role)}
      variant="contained"
      size="large"
      endIcon={<ArrowForwardIcon />}
    >
      Go to {startPageLabel(role)}
    </Button>
  );
  return (
    <>
      <title>{`${site.name} — ${site.tagline}`}</title>
      <SiteHeader />
      <Box component="main">
        <Box
          component="section"
          aria-labelledby="hero-heading"
          sx={{
            background: 'linear-gradient(180deg, #e9f2fc 0%, #f6f9fd 70%, #ffffff 100%)',
            pt: { xs: 6, md: 10 },
            pb: { xs: 8, md: 12 },
            overflow: 'hidden',
          }}
        >
          <Container maxWidth="lg">
            <Box
              sx={{
                display: 'grid',
                gap: { xs: 6, md: 8 },
                alignItems: 'center',
                gridTemplateColumns: { xs: '1fr', md: '1.05fr 1fr' },
              }}
            >
              <Box>
                <Typography variant="overline" color="primary" component="p" sx={{ mb: 1.5 }}>
                  {site.tagline}
                </Typography>
                <Typography
                  id="hero-heading"
                  variant="h1"
                  sx={{ fontSize: { xs: 36, sm: 46, md: 54 }, lineHeight: 1.08, mb: 3 }}
                >
                  Medical images, shared securely with exactly the right people.
                </Typography>
                <Typography color="text.secondary" sx={{ fontSize: { xs: 17, md: 19 }, mb: 4, maxWidth: 560 }}>
                  {site.name} lets health providers upload X-rays, scans and reports, assign them to their patients and
                  share them with colleagues. Every file is encrypted, every access is checked and every action is
                  recorded.
                </Typography>
                <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mb: 4 }}>
                  {signedIn ? (
                    backIntoApp
                  ) : (
                    <>
                      <Button
                        component={RouterLink}
                        to={paths.register}
                        variant="contained"
                        size="large"
                        endIcon={<ArrowForwardIcon />}
                      >
                        Create an account
                      </Button>
                      <Button component={RouterLink} to={paths.login} variant="outlined" size="large">
                        Login
                      </Button>
                    </>
                  )}
                </Stack>
                <Stack direction="row" sx={{ flexWrap: 'wrap', columnGap: 3, rowGap: 1 }}>
                  {['Two-step sign-in', 'Per-file encryption keys', 'Self-hostable'].map((point) => (
                    <Box key={point} sx={{ display: 'flex', alignItems: 'center', gap: 0.75, color: 'text.secondary' }}>
                      <CheckIcon fontSize="small" color="secondary" aria-hidden />
                      <Typography variant="body2" sx={{ fontWeight: 600 }}>
                        {point}
                      </Typography>
                    </Box>
                  ))}
                </Stack>
              </Box>
              <Box sx={{ maxWidth: 560, width: '100%', mx: 'auto' }}>
                <HeroIllustration />
              </Box>
            </Box>
          </Container>
        </Box>

        <Box component="section" aria-labelledby="promises-heading" sx={{ py: { xs: 8, md: 12 } }}>
          <Container maxWidth="lg">
            <SectionHeading
              id="promises-heading"
              overline="Why MedShare"
              title="Security built into every step"
              text="Four promises, each kept by the system itself rather than by good intentions."
            />
            <Box
              sx={{
                display: 'grid',
                gap: 3,
                gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', lg: 'repeat(4, 1fr)' },
              }}
            >
              {promises.map((promise) => (
                <Card key={promise.title} sx={{ p: 3.5, height: '100%' }}>
                  <IconBadge>{promise.icon}</IconBadge>
                  <Typography variant="h6" component="h3" sx={{ mt: 2.5, mb: 1 }}>
                    {promise.title}
                  </Typography>
                  <Typography color="text.secondary" variant="body2" sx={{ lineHeight: 1.7 }}>
                    {promise.text}
                  </Typography>
                </Card>
              ))}
            </Box>
          </Container>
        </Box>

        <Box
          component="section"
          aria-label="MedShare in figures"
          sx={{
            background: 'linear-gradient(120deg, #0b5cad 0%, #073f78 100%)',
            color: 'common.white',
            py: { xs: 6, md: 8 },
          }}
        >
          <Container maxWidth="lg">
            <Box
              component="dl"
              sx={{ display: 'grid', gap: 4, gridTemplateColumns: { xs: '1fr', sm: 'repeat(3, 1fr)' }, m: 0 }}
            >
              {figures.map((figure) => (
                <Box key={figure.label} sx={{ textAlign: 'center', display: 'flex', flexDirection: 'column-reverse' }}>
                  <Typography component="dt" sx={{ color: 'rgba(255,255,255,0.8)', fontSize: 17, fontWeight: 500 }}>
                    {figure.label}
                  </Typography>
                  <Typography
                    component="dd"
                    sx={{ m: 0, fontSize: { xs: 44, md: 56 }, fontWeight: 800, letterSpacing: '-0.02em' }}
                  >
                    {figure.value}
                  </Typography>
                </Box>
              ))}
            </Box>
          </Container>
        </Box>

        <Box
          component="section"
          aria-labelledby="how-heading"
          sx={{ py: { xs: 8, md: 12 }, bgcolor: 'background.default' }}
        >
          <Container maxWidth="lg">
            <SectionHeading
              id="how-heading"
              overline="How it works"
              title="From the scanner to the right screen in three steps"
            />
            <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' } }}>
              {steps.map((step, index) => (
                <Card key={step.title} sx={{ p: 3.5 }}>
                  <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 2 }}>
                    <IconBadge tone="secondary">{step.icon}</IconBadge>
                    <Typography sx={{ fontWeight: 800, color: 'text.secondary', fontSize: 14 }}>
                      STEP {index + 1}
                    </Typography>
                  </Box>
                  <Typography variant="h6" component="h3" sx={{ mb: 1 }}>
                    {step.title}
                  </Typography>
                  <Typography color="text.secondary" variant="body2" sx={{ lineHeight: 1.7 }}>
                    {step.text}
                  </Typography>
                </Card>
              ))}
            </Box>
          </Container>
        </Box>

        <Box component="section" aria-labelledby="audience-heading" sx={{ py: { xs: 8, md: 12 } }}>
          <Container maxWidth="lg">
            <SectionHeading
              id="audience-heading"
              overline="For the whole care pathway"
              title="One place for patients, providers and administrators"
            />
            <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: 'repeat(3, 1fr)' } }}>
              {audiences.map((audience) => (
                <Card key={audience.title} sx={{ p: 3.5 }}>
                  <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mb: 2 }}>
                    <IconBadge>{audience.icon}</IconBadge>
                    <Typography variant="h6" component="h3">
                      {audience.title}
                    </Typography>
                  </Box>
                  <Stack component="ul" spacing={1.25} sx={{ listStyle: 'none', p: 0, m: 0 }}>
                    {audience.points.map((point) => (
                      <Box component="li" key={point} sx={{ display: 'flex', gap: 1, alignItems: 'flex-start' }}>
                        <CheckIcon fontSize="small" color="secondary" sx={{ mt: '2px' }} aria-hidden />
                        <Typography variant="body2" color="text.secondary">
                          {point}
                        </Typography>
                      </Box>
                    ))}
                  </Stack>
                </Card>
              ))}
            </Box>
          </Container>
        </Box>

        <Box component="section" aria-label="Get started" sx={{ pb: { xs: 8, md: 12 } }}>
          <Container maxWidth="lg">
            <Box
              sx={{
                borderRadius: 5,
                px: { xs: 3, md: 8 },
                py: { xs: 5, md: 7 },
                background: 'linear-gradient(135deg, #e8f1fb 0%, #e3f4ef 100%)',
                display: 'flex',
                flexDirection: { xs: 'column', md: 'row' },
                alignItems: { xs: 'flex-start', md: 'center' },
                justifyContent: 'space-between',
                gap: 3,
              }}
            >
              <Box>
                <Typography variant="h4" component="h2" sx={{ fontSize: { xs: 26, md: 32 }, mb: 1 }}>
                  Ready to share images the secure way?
                </Typography>
                <Typography color="text.secondary">
                  {signedIn
                    ? 'Back to your images, or see how sharing works in the demo.'
                    : 'Create an account in a minute, or see how sharing works in the demo first.'}
                </Typography>
              </Box>
              <Stack
                direction={{ xs: 'column', sm: 'row' }}
                spacing={2}
                sx={{ flexShrink: 0, width: { xs: '100%', sm: 'auto' } }}
              >
                {signedIn ? (
                  backIntoApp
                ) : (
                  <Button component={RouterLink} to={paths.register} variant="contained" size="large">
                    Register
                  </Button>
                )}
                <Button component={RouterLink} to={paths.shareImage} variant="outlined" size="large">
                  Try the share demo
                </Button>
              </Stack>
            </Box>
          </Container>
        </Box>
      </Box>
      <SiteFooter />
    </>
  );
}

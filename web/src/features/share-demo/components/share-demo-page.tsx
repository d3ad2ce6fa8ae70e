import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import EmailIcon from '@mui/icons-material/Email';
import FacebookIcon from '@mui/icons-material/Facebook';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import XIcon from '@mui/icons-material/X';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Container from '@mui/material/Container';
import IconButton from '@mui/material/IconButton';
import Snackbar from '@mui/material/Snackbar';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { SiteFooter } from '../../../components/layout/site-footer';
import { SiteHeader } from '../../../components/layout/site-header';
import { site } from '../../../config/site';
import { samples, shareLinks, type Sample } from './samples';

type Notice = { severity: 'success' | 'error'; text: string } | null;

function absoluteUrl(path: string): string {
  return new URL(path, window.location.origin).toString();
}

function SampleCard({ sample, onCopied }: { sample: Sample; onCopied: (notice: Notice) => void }) {
  const url = absoluteUrl(sample.file);
  const links = shareLinks(url, sample.title);

  async function copyLink() {
    try {
      await navigator.clipboard.writeText(url);
      onCopied({ severity: 'success', text: 'Link copied to clipboard!' });
    } catch {
      // Clipboard access needs a secure context and permission; say so rather than fail silently.
      onCopied({ severity: 'error', text: 'Could not copy the link. Copy it from the address bar instead.' });
    }
  }

  return (
    <Card component="article" aria-labelledby={`${sample.id}-title`} sx={{ display: 'flex', flexDirection: 'column' }}>
      <Box sx={{ bgcolor: '#05090e', aspectRatio: '4 / 3' }}>
        <Box
          component="img"
          src={sample.file}
          alt={`${sample.title}, a drawn sample illustration`}
          loading="lazy"
          width={800}
          height={600}
          sx={{ width: '100%', height: '100%', objectFit: 'cover', display: 'block' }}
        />
      </Box>
      <CardContent sx={{ flexGrow: 1 }}>
        <Typography id={`${sample.id}-title`} variant="h6" component="h2">
          {sample.title}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {sample.description}
        </Typography>
      </CardContent>
      <CardActions sx={{ px: 2, pb: 2, pt: 0, flexDirection: 'column', alignItems: 'stretch', gap: 1 }}>
        <Button
          variant="contained"
          startIcon={<ContentCopyIcon />}
          onClick={copyLink}
          aria-label={`Copy link to ${sample.title}`}
          fullWidth
        >
          Copy link
        </Button>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5, ml: '0 !important' }}>
          <Typography variant="body2" color="text.secondary" sx={{ flexGrow: 1 }}>
            Share via
          </Typography>
          <Tooltip title="Share on Facebook">
            <IconButton
              component="a"
              href={links.facebook}
              target="_blank"
              rel="noopener noreferrer"
              aria-label={`Share ${sample.title} on Facebook`}
              sx={{ color: '#1877f2' }}
            >
              <FacebookIcon />
            </IconButton>
          </Tooltip>
          <Tooltip title="Share on X">
            <IconButton
              component="a"
              href={links.x}
              target="_blank"
              rel="noopener noreferrer"
              aria-label={`Share ${sample.title} on X`}
              sx={{ color: '#0f1419' }}
            >
              <XIcon />
            </IconButton>
          </Tooltip>
          <Tooltip title="Share by e-mail">
            <IconButton component="a" href={links.email} aria-label={`Share ${sample.title} by e-mail`} color="primary">
              <EmailIcon />
            </IconButton>
          </Tooltip>
        </Box>
      </CardActions>
    </Card>
  );
}

export function ShareDemoPage() {
  const [notice, setNotice] = useState<Notice>(null);
  // Kept apart from the notice so its text stays put while the snackbar fades out.
  const [open, setOpen] = useState(false);
  const show = (next: Notice) => {
    setNotice(next);
    setOpen(true);
  };

  return (
    <>
      <title>{`Share demo · ${site.name}`}</title>
      <SiteHeader />
      <Box component="main" sx={{ bgcolor: 'background.default', py: { xs: 5, md: 8 } }}>
        <Container maxWidth="lg">
          <Box sx={{ maxWidth: 720, mb: 4 }}>
            <Typography variant="overline" color="secondary" component="p">
              Share demo
            </Typography>
            <Typography variant="h3" component="h1" sx={{ fontSize: { xs: 30, md: 40 }, mb: 1.5 }}>
              Try sharing an image
            </Typography>
            <Typography color="text.secondary" sx={{ fontSize: 18 }}>
              Copy a link, or share one of these sample pictures on a social network, a microblog or by e-mail.
            </Typography>
          </Box>
          <Alert severity="info" icon={<InfoOutlinedIcon />} sx={{ mb: 4 }}>
            These are drawn illustrations, not patient data. Real studies in {site.name} are never public: they are
            shared inside the app with a one-time code.
          </Alert>
          <Box
            sx={{
              display: 'grid',
              gap: 3,
              gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', lg: 'repeat(4, 1fr)' },
            }}
          >
            {samples.map((sample) => (
              <SampleCard key={sample.id} sample={sample} onCopied={show} />
            ))}
          </Box>
        </Container>
      </Box>
      <SiteFooter />
      <Snackbar
        open={open}
        autoHideDuration={4000}
        onClose={() => setOpen(false)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
      >
        <Alert severity={notice?.severity ?? 'success'} variant="filled" onClose={() => setOpen(false)}>
          {notice?.text}
        </Alert>
      </Snackbar>
    </>
  );
}

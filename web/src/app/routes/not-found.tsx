import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { Logo } from '../../components/ui/logo';
import { paths } from '../../config/paths';
import { site } from '../../config/site';

export default function NotFoundRoute() {
  return (
    <Box
      component="main"
      sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', p: 3, bgcolor: 'background.default' }}
    >
      <title>{`Page not found · ${site.name}`}</title>
      <Box sx={{ textAlign: 'center', maxWidth: 480 }}>
        <Box sx={{ mb: 4 }}>
          <Logo size={34} />
        </Box>
        <Typography
          sx={{ fontSize: { xs: 72, sm: 96 }, fontWeight: 800, color: 'primary.main', lineHeight: 1 }}
          aria-hidden
        >
          404
        </Typography>
        <Typography variant="h4" component="h1" sx={{ mt: 2, mb: 1 }}>
          Page not found
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 4 }}>
          The page you are looking for does not exist or has moved.
        </Typography>
        <Button component={RouterLink} to={paths.home} variant="contained" size="large" startIcon={<ArrowBackIcon />}>
          Back to home
        </Button>
      </Box>
    </Box>
  );
}

import ConstructionIcon from '@mui/icons-material/Construction';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { site } from '../../config/site';

/** Body of a signed-in page whose screen is not built yet. */
export function ComingSoon({ title }: { title: string }) {
  return (
    <>
      <title>{`${title} · ${site.name}`}</title>
      <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 }, mb: 3 }}>
        {title}
      </Typography>
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center' }}>
        <ConstructionIcon color="primary" sx={{ fontSize: 44, mb: 1 }} aria-hidden />
        <Typography variant="h6" component="p">
          Coming soon
        </Typography>
        <Typography color="text.secondary">This page is being built.</Typography>
      </Paper>
    </>
  );
}

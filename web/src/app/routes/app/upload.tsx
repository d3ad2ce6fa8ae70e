import Typography from '@mui/material/Typography';
import { site } from '../../../config/site';
import { UploadForm } from '../../../features/images/components/upload-form';

export default function UploadRoute() {
  return (
    <>
      <title>{`Upload Medical Image · ${site.name}`}</title>
      <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 }, mb: 3 }}>
        Upload Medical Image
      </Typography>
      <UploadForm />
    </>
  );
}

import Typography from '@mui/material/Typography';
import { paths } from '../../../config/paths';
import { site } from '../../../config/site';
import { ViewImagesPage } from '../../../features/images/components/view-images-page';

export default function ViewImagesRoute() {
  return (
    <>
      <title>{`View Medical Images · ${site.name}`}</title>
      <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 }, mb: 2 }}>
        View Medical Images
      </Typography>
      <ViewImagesPage aiPath={(id) => `${paths.aiAnalysis}/${id}`} dicomPath={(id) => `${paths.dicomViewer}/${id}`} />
    </>
  );
}

import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink, useParams } from 'react-router';
import { paths } from '../../config/paths';
import { site } from '../../config/site';
import { DicomViewer } from './components/dicom-viewer';

/** /dicom/:id — loaded only on this route (the router imports it lazily). */
export default function DicomViewerRoute() {
  const { id = '' } = useParams();
  return (
    <>
      <title>{`DICOM Viewer · ${site.name}`}</title>
      <Stack
        direction="row"
        sx={{ alignItems: 'center', justifyContent: 'space-between', flexWrap: 'wrap', gap: 1, mb: 2 }}
      >
        <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 } }}>
          DICOM Viewer
        </Typography>
        <Button component={RouterLink} to={paths.viewImages} startIcon={<ArrowBackIcon />} size="small">
          Back to images
        </Button>
      </Stack>
      <DicomViewer key={id} imageId={id} />
    </>
  );
}

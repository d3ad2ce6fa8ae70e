import type { DicomMetadata } from '@medshare/contracts';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { metadataRows, type MetadataRow } from '../utils/format-metadata';

function Rows({ rows }: { rows: MetadataRow[] }) {
  return (
    <Box
      component="dl"
      sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 1.5, rowGap: 0.5, m: 0 }}
    >
      {rows.map((row) => (
        <Box key={row.label} sx={{ display: 'contents' }}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {row.label}
          </Typography>
          <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
            {row.value}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}

/** The DICOM attributes of the open image; patient rows only when the server sent them. */
export function MetadataPanel({ metadata }: { metadata: DicomMetadata }) {
  const { image, patient } = metadataRows(metadata);
  return (
    <Box sx={{ display: 'grid', gap: 2 }}>
      <section aria-labelledby="dicom-image-attributes">
        <Typography id="dicom-image-attributes" variant="subtitle2" component="h2" sx={{ mb: 1 }}>
          Image
        </Typography>
        {image.length ? <Rows rows={image} /> : <Typography variant="body2">No attributes recorded.</Typography>}
      </section>
      {patient.length > 0 && (
        <section aria-labelledby="dicom-patient-attributes">
          <Typography id="dicom-patient-attributes" variant="subtitle2" component="h2" sx={{ mb: 1 }}>
            Patient
          </Typography>
          <Rows rows={patient} />
        </section>
      )}
    </Box>
  );
}

import ChevronLeftIcon from '@mui/icons-material/ChevronLeft';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import DownloadIcon from '@mui/icons-material/Download';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import type { ExternalImage, ExternalView } from '@medshare/contracts/external-shares';
import { ExternalShareMessages } from '@medshare/contracts/constants';
import { ExternalSharePaths } from '@medshare/contracts/paths';
import { skipToken } from '@reduxjs/toolkit/query/react';
import { type ComponentType, useCallback, useEffect, useMemo, useState } from 'react';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { PictureViewer } from '../../../components/ui/picture-viewer';
import { ApiError } from '../../../lib/api-client';
import { toastApiError } from '../../../lib/notify';
import { fetchDownload, useExternalBlobQuery } from '../api/external-link';

const extensions: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'application/pdf': 'pdf',
  'application/dicom': 'dcm',
};

/**
 * The path the viewer shows: the bytes of a picture or PDF; for DICOM the server's rendered thumbnail
 * (the Cornerstone viewer reads signed-in routes only), or nothing when it has none.
 */
function shownPath(image: ExternalImage): string | null {
  if (image.contentType === 'application/dicom')
    return image.hasThumbnail ? ExternalSharePaths.thumbnail(image.id) : null;
  return ExternalSharePaths.content(image.id);
}

function Shown({
  image,
  label,
  onRefused,
}: {
  image: ExternalImage;
  label: string;
  onRefused: (refusal: ApiError) => void;
}) {
  const path = shownPath(image);
  const { currentData, error, isFetching } = useExternalBlobQuery(path ?? skipToken);
  useEffect(() => {
    if (error instanceof ApiError && [401, 410, 429].includes(error.status)) onRefused(error);
  }, [error, onRefused]);

  const frame = { flexGrow: 1, minHeight: 0, display: 'flex', alignItems: 'center', justifyContent: 'center' };
  if (!path)
    return (
      <Box sx={{ ...frame, bgcolor: 'grey.900', color: 'grey.100', p: 3, textAlign: 'center' }}>
        <Typography>This DICOM image has no preview. Download it to open it in a DICOM viewer.</Typography>
      </Box>
    );
  if (isFetching && !currentData)
    return (
      <Box sx={{ ...frame, bgcolor: 'grey.900' }}>
        <DelayedCircularProgress aria-label="Loading image" sx={{ color: 'grey.100' }} />
      </Box>
    );
  if (!currentData)
    return (
      <Box sx={{ ...frame, p: 3 }}>
        <Typography role="alert">
          {error ? 'The image could not be loaded. Reload the page to try again.' : ''}
        </Typography>
      </Box>
    );
  if (image.contentType === 'application/pdf')
    return (
      <Box
        component="iframe"
        src={currentData.url}
        title={`PDF: ${label}`}
        sx={{ flexGrow: 1, border: 0, width: '100%', minHeight: 0 }}
      />
    );
  return <PictureViewer key={image.id} url={currentData.url} caption={label} />;
}

async function download(image: ExternalImage, name: string) {
  try {
    const blob = await fetchDownload(image.id);
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = `${
      name
        .replace(/[^\p{L}\p{N} _.-]+/gu, '')
        .trim()
        .slice(0, 80) || 'image'
    }.${extensions[image.contentType] ?? 'bin'}`;
    document.body.append(link);
    link.click();
    link.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (error) {
    toastApiError(error, 'The file could not be downloaded.');
  }
}

/** What the page hands a DICOM viewer: the share's DICOM images as link-scoped files, in order. */
export type LinkDicomViewerProps = {
  files: ReadonlyArray<{ id: string; url: string; frames: number }>;
  modality: string | null;
  /** The index of the slice shown (a multi-frame file counts once per frame). */
  onSlice: (index: number) => void;
  /** A file read refused (401, 410, 429): the page asks the code again or says the link ended. */
  onRefused: (status: number, message: string) => void;
};

/**
 * The Cornerstone stack viewer, passed in by the app (a feature may not import another:
 * `docs/architecture.md` › Frontend). Without it, DICOM shows as the server's rendered preview.
 */
export type LinkDicomViewer = ComponentType<LinkDicomViewerProps>;

/** The image a slice index falls in, counting each frame of a multi-frame file. */
function imageAtSlice(images: readonly ExternalImage[], slice: number): number {
  let start = 0;
  for (const [i, image] of images.entries()) {
    start += Math.max(1, image.dicom?.frames ?? 1);
    if (slice < start) return i;
  }
  return Math.max(0, images.length - 1);
}

/**
 * What a share link shows after its code: the shared image, or a study's images stepped through with
 * Previous / Next and ← / → (position shown); Download only when the share allows it.
 */
export function ShareViewer({
  view,
  onRefused,
  dicomViewer: DicomStack,
}: {
  view: ExternalView;
  onRefused: (refusal: ApiError) => void;
  dicomViewer?: LinkDicomViewer | undefined;
}) {
  const [index, setIndex] = useState(0);
  // A share of DICOM images only (a study, or one DICOM image) opens in the stack viewer, read-only,
  // from the link-scoped content route; objects without pixels (a report) are left out of the stack.
  const stackImages = useMemo(() => {
    const all = view.images;
    if (!DicomStack || !all.length || all.some((i) => i.contentType !== 'application/dicom')) return null;
    const shown = all.filter((i) => i.dicom?.kind === 'image');
    return shown.length ? shown : null;
  }, [view.images, DicomStack]);
  const files = useMemo(
    () =>
      stackImages?.map((i) => ({ id: i.id, url: ExternalSharePaths.content(i.id), frames: i.dicom?.frames ?? 1 })) ??
      [],
    [stackImages],
  );
  const [slice, setSlice] = useState(0);
  const onFileRefused = useCallback(
    (status: number, message: string) => {
      if ([401, 410, 429].includes(status)) onRefused(new ApiError(status, message));
    },
    [onRefused],
  );
  const images = stackImages ?? view.images;
  const count = images.length;
  const image = stackImages ? stackImages[imageAtSlice(stackImages, slice)] : images[Math.min(index, count - 1)];

  // ← / → step through the images unless the focused picture used the key itself (it pans); the
  // stack viewer has its own keys.
  useEffect(() => {
    if (count < 2 || stackImages) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
      if (event.key === 'ArrowRight') setIndex((i) => Math.min(count - 1, i + 1));
      else if (event.key === 'ArrowLeft') setIndex((i) => Math.max(0, i - 1));
      else if (event.key === 'Home') setIndex(0);
      else if (event.key === 'End') setIndex(count - 1);
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [count, stackImages]);

  if (!image) return <Typography sx={{ p: 2 }}>There is nothing left to show in this share.</Typography>;
  const shownIndex = stackImages ? imageAtSlice(stackImages, slice) : index;
  const label = count > 1 ? `${view.title}, image ${shownIndex + 1} of ${count}` : view.title;
  return (
    <Box sx={{ display: 'grid', gap: 1.5 }}>
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="body2">
          <strong>Shared by:</strong> {view.sharedBy || 'A MedShare user'}
        </Typography>
        {view.kind === 'study' && <Chip size="small" variant="outlined" label="Study" />}
        {view.deidentified && <Chip size="small" variant="outlined" label="De-identified" />}
        {!stackImages && image.contentType === 'application/dicom' && image.hasThumbnail && (
          <Typography variant="body2" color="text.secondary">
            DICOM image: a preview rendered by the server.
          </Typography>
        )}
      </Box>
      {DicomStack && stackImages ? (
        <DicomStack
          files={files}
          modality={stackImages[0]?.dicom?.modality ?? null}
          onSlice={setSlice}
          onRefused={onFileRefused}
        />
      ) : (
        <Box
          sx={{
            height: { xs: '58vh', sm: '66vh' },
            minHeight: 280,
            display: 'flex',
            flexDirection: 'column',
            border: 1,
            borderColor: 'divider',
            borderRadius: 1,
            overflow: 'hidden',
          }}
        >
          <Shown image={image} label={label} onRefused={onRefused} />
        </Box>
      )}
      <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', justifyContent: 'space-between' }}>
        {count > 1 && !stackImages ? (
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }} role="group" aria-label="Images of this share">
            <Button
              variant="outlined"
              startIcon={<ChevronLeftIcon />}
              disabled={index === 0}
              onClick={() => setIndex((i) => Math.max(0, i - 1))}
            >
              Previous
            </Button>
            <Typography aria-live="polite" sx={{ minWidth: 64, textAlign: 'center', fontWeight: 600 }}>
              {`${index + 1} / ${count}`}
            </Typography>
            <Button
              variant="outlined"
              endIcon={<ChevronRightIcon />}
              disabled={index >= count - 1}
              onClick={() => setIndex((i) => Math.min(count - 1, i + 1))}
            >
              Next
            </Button>
          </Box>
        ) : (
          <span />
        )}
        {view.viewOnly ? (
          <Typography variant="body2" color="text.secondary">
            {ExternalShareMessages.viewOnly}
          </Typography>
        ) : (
          <Button variant="contained" startIcon={<DownloadIcon />} onClick={() => void download(image, label)}>
            Download
          </Button>
        )}
      </Box>
    </Box>
  );
}

import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import Typography from '@mui/material/Typography';
import type { Image } from '@medshare/contracts';
import { useState, type ReactNode } from 'react';
import { selectUser } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { toastApiError } from '../../../lib/notify';
import { fetchImageBlob } from '../api/image-content';
import { useImageList } from '../hooks/use-image-list';
import { usePublicSettings } from '../hooks/use-public-settings';
import { splitImages, type Viewer } from '../utils/card-rules';
import { IMAGES_TOAST } from '../utils/toast-options';
import { ContentViewerDialog } from './content-viewer-dialog';
import { DeleteDialog } from './delete-dialog';
import { ImageCard, type CardHandlers } from './image-card';
import { PagingControl } from './paging-control';
import { ShareDialog } from './share-dialog';
import { VerifyDialog } from './verify-dialog';

const extensions: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'application/pdf': 'pdf',
  'application/dicom': 'dcm',
};

/** A file name from the caption; the server's own name stays in Content-Disposition. */
function downloadName(image: Image): string {
  const base =
    image.caption
      .replace(/[^\p{L}\p{N} _.-]+/gu, '')
      .trim()
      .slice(0, 80) || 'image';
  return `${base}.${extensions[image.contentType] ?? 'bin'}`;
}

async function download(image: Image) {
  if (!image.image_url) return;
  try {
    const blob = await fetchImageBlob(image.image_url, { download: true });
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = downloadName(image);
    document.body.append(link);
    link.click();
    link.remove();
    // Give the browser a moment to start the download before the URL goes away.
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (error) {
    toastApiError(error, 'The file could not be downloaded.', IMAGES_TOAST);
  }
}

type SectionProps = {
  title: string;
  images: Image[];
  empty: string;
  render: (image: Image) => ReactNode;
};

function Section({ title, images, empty, render }: SectionProps) {
  const id = `section-${title.toLowerCase().replace(/\s+/g, '-')}`;
  return (
    <Box component="section" aria-labelledby={id} sx={{ mb: 4 }}>
      <Typography id={id} component="h2" variant="h5" sx={{ mb: 2, fontWeight: 700 }}>
        {title}
      </Typography>
      {images.length === 0 ? (
        <Typography color="text.secondary">{empty}</Typography>
      ) : (
        <Box
          sx={{
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', sm: 'repeat(auto-fill, minmax(260px, 1fr))' },
          }}
        >
          {images.map((image) => (
            <Box key={`${image.id}-${image.sharingId ?? 'own'}`}>{render(image)}</Box>
          ))}
        </Box>
      )}
    </Box>
  );
}

/** View Medical Images: Uploaded and Shared sections over one server-paged list (spec §4, §6). */
export function ViewImagesPage({
  aiPath,
  dicomPath,
}: {
  aiPath: (id: string) => string;
  dicomPath?: (id: string) => string;
}) {
  const user = useAppSelector(selectUser);
  const { displayLocale, displayTimeZone } = usePublicSettings();
  const { images, pagination, page, setPage, loading, reload } = useImageList(user?.role);
  const [sharing, setSharing] = useState<Image | null>(null);
  const [verifying, setVerifying] = useState<Image | null>(null);
  const [deleting, setDeleting] = useState<Image | null>(null);
  const [viewing, setViewing] = useState<Image | null>(null);

  if (!user) return null;
  const viewer: Viewer = { id: user.id, role: user.role };
  const { uploaded, shared } = splitImages(images);
  const handlers: CardHandlers = {
    onShare: setSharing,
    onVerify: setVerifying,
    onDelete: setDeleting,
    onView: setViewing,
    onDownload: (image) => void download(image),
  };
  const card = (image: Image) => (
    <ImageCard
      image={image}
      viewer={viewer}
      locale={displayLocale}
      timeZone={displayTimeZone}
      aiPath={aiPath(image.id)}
      dicomPath={dicomPath?.(image.id)}
      {...handlers}
    />
  );
  const totalPages = pagination?.totalPages ?? 1;

  return (
    <>
      <Box sx={{ minHeight: 4, mb: 1 }}>{loading && <LinearProgress aria-label="Loading images" />}</Box>
      {!loading && images.length === 0 && page === 1 && (
        <Alert severity="info" sx={{ mb: 3 }}>
          No images yet.
        </Alert>
      )}
      {user.role !== 'patient' && (
        <Section title="Uploaded Images" images={uploaded} empty="No uploaded images on this page." render={card} />
      )}
      <Section title="Shared Images" images={shared} empty="No shared images on this page." render={card} />
      {totalPages > 0 && (
        <PagingControl
          page={page}
          totalPages={totalPages}
          capped={pagination?.totalItemsCapped ?? false}
          onChange={setPage}
          label="Image pages"
          disabled={loading && images.length === 0}
        />
      )}

      <ShareDialog
        image={sharing}
        viewerId={user.id}
        locale={displayLocale}
        timeZone={displayTimeZone}
        onClose={() => setSharing(null)}
        onShared={reload}
      />
      <VerifyDialog image={verifying} onClose={() => setVerifying(null)} onVerified={reload} />
      <DeleteDialog image={deleting} onClose={() => setDeleting(null)} onDeleted={reload} />
      <ContentViewerDialog image={viewing} onClose={() => setViewing(null)} />
    </>
  );
}

import UploadIcon from '@mui/icons-material/CloudUpload';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import type { AccessState, Image, StudySummary } from '@medshare/contracts';
import { SharingMessages } from '@medshare/contracts/constants';
import { roleHasAny } from '@medshare/contracts/permissions';
import { lazy, Suspense, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { DelayedLinearProgress } from '../../../components/ui/delayed-progress';
import { paths } from '../../../config/paths';
import { selectUser } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { toast, toastApiError } from '../../../lib/notify';
import { fetchImageBlob } from '../api/image-content';
import { useImageList } from '../hooks/use-image-list';
import { useNearScreen } from '../hooks/use-near-screen';
import { useRevealBudget } from '../hooks/use-reveal-budget';
import { useStudyList } from '../hooks/use-study-list';
import { usePublicSettings } from '../../../lib/public-settings';
import { splitImages, type Viewer } from '../utils/card-rules';
import { IMAGES_TOAST } from '../utils/toast-options';
import { ExternalLinksSection } from './external-links-section';
import type { LinkTarget as ExternalLinkTarget } from './external-share-dialog';
import { ImageCard, type CardHandlers } from './image-card';
import { PagingControl } from './paging-control';
import { StudyCard } from './study-card';

// The dialogs' code (forms, pickers, the full-size viewer) loads when one first opens: showing the
// page does not need it, and on a phone it was a third of the page's download and start-up work.
const ShareDialog = lazy(() => import('./share-dialog').then((m) => ({ default: m.ShareDialog })));
const ShareStudyDialog = lazy(() => import('./share-study-dialog').then((m) => ({ default: m.ShareStudyDialog })));
const VerifyDialog = lazy(() => import('./verify-dialog').then((m) => ({ default: m.VerifyDialog })));
const ExternalShareDialog = lazy(() =>
  import('./external-share-dialog').then((m) => ({ default: m.ExternalShareDialog })),
);
const DeleteDialog = lazy(() => import('./delete-dialog').then((m) => ({ default: m.DeleteDialog })));
const ContentViewerDialog = lazy(() =>
  import('./content-viewer-dialog').then((m) => ({ default: m.ContentViewerDialog })),
);

/** A lazily loaded dialog, mounted from its first opening on (it then stays, so that closing animates). */
function OnceOpened({ open, children }: { open: boolean; children: ReactNode }) {
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  return opened ? <Suspense fallback={null}>{children}</Suspense> : null;
}

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

type SectionProps<T> = {
  title: string;
  items: T[];
  keyOf: (item: T) => string;
  /** The card's title, shown in its outline until the card is drawn. */
  labelOf: (item: T) => string;
  /** Shown when the section has nothing on this page; null while the list is still loading. */
  empty: ReactNode;
  render: (item: T) => ReactNode;
};

/**
 * A card's cell in the grid: the card once it is near the screen (useNearScreen), until then an
 * outline of a card's usual size with its title, drawn from three plain elements and one stylesheet
 * rule (index.css) instead of the card's ~120 components.
 */
function CardSlot({ label, children }: { label: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const near = useNearScreen(ref);
  return (
    <div ref={ref}>
      {near ? (
        children
      ) : (
        <div className="card-outline">
          <div className="card-outline-preview" />
          <h3 className="card-outline-title">{label}</h3>
        </div>
      )}
    </div>
  );
}

function Section<T>({ title, items, keyOf, labelOf, empty, render }: SectionProps<T>) {
  const id = `section-${title.toLowerCase().replace(/\s+/g, '-')}`;
  return (
    <Box component="section" aria-labelledby={id} sx={{ mb: 4 }}>
      <Typography id={id} component="h2" variant="h5" sx={{ mb: 2, fontWeight: 700 }}>
        {title}
      </Typography>
      {items.length === 0 ? (
        empty
      ) : (
        <Box
          sx={{
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', sm: 'repeat(auto-fill, minmax(280px, 1fr))' },
          }}
        >
          {items.map((item) => (
            <CardSlot key={keyOf(item)} label={labelOf(item)}>
              {render(item)}
            </CardSlot>
          ))}
        </Box>
      )}
    </Box>
  );
}

/** What an empty section means and what to do about it: one message per section. */
function EmptySection({ title, next, action }: { title: string; next: string; action?: ReactNode }) {
  return (
    <Box
      sx={{
        p: { xs: 2, sm: 3 },
        border: 1,
        borderStyle: 'dashed',
        borderColor: 'divider',
        borderRadius: 2,
        display: 'grid',
        gap: 1,
        justifyItems: 'start',
      }}
    >
      <Typography sx={{ fontWeight: 600 }}>{title}</Typography>
      <Typography color="text.secondary" variant="body2">
        {next}
      </Typography>
      {action}
    </Box>
  );
}

const OTHER_PAGES = 'The other pages hold the rest: use the arrows below.';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LINK_NOT_YOURS =
  'The image of this link is not among the images shared with you. Check that you are signed in as the person the e-mail was sent to, or ask the sender to share it again.';

const ENDED: Record<'image' | 'study', Partial<Record<AccessState, string>>> = {
  image: {
    expired: SharingMessages.expired,
    locked: SharingMessages.locked,
    revoked: 'The sender has withdrawn this share. Ask them to share the image again.',
  },
  study: {
    expired: SharingMessages.expired,
    locked: SharingMessages.locked,
    revoked: 'The sender has withdrawn this share. Ask them to share the study again.',
  },
};

/** A card a share mail's link may name: an image, or a study shared whole. */
type LinkTarget = { sharingId: string | null; accessState: AccessState; noun: 'image' | 'study'; open: () => void };

/**
 * A share mail's link, /view-images?verify=<sharingId> (`docs/product.md` › View images): once the lists have
 * answered, opens that image's or study's Verify dialog with the sharing id filled in, and drops the
 * parameter so that a reload or Back does not open it again. The code is never in the link.
 */
function useVerifyLink(targets: LinkTarget[], ready: boolean, morePages: boolean) {
  const [searchParams, setSearchParams] = useSearchParams();
  const requested = searchParams.get('verify');
  const [sharingId, setSharingId] = useState<string | null>(null);
  // The link is read once, though the lists may answer again before the URL has changed.
  const consumed = useRef<string | null>(null);
  useEffect(() => {
    if (requested === null || !ready || consumed.current === requested) return;
    consumed.current = requested;
    setSearchParams(
      (params) => {
        params.delete('verify');
        return params;
      },
      { replace: true },
    );
    const id = requested.trim();
    const target = targets.find((t) => t.sharingId?.toLowerCase() === id.toLowerCase());
    if (target?.accessState === 'verified')
      toast.info(`This ${target.noun} is already verified: it is open below.`, IMAGES_TOAST);
    else if (target?.accessState === 'pending') target.open();
    else if (target) toast.error(ENDED[target.noun][target.accessState] ?? LINK_NOT_YOURS, IMAGES_TOAST);
    // Not on this page: the dialog takes the id when other pages may hold it; the server decides.
    else if (UUID.test(id) && morePages) setSharingId(id);
    else toast.error(LINK_NOT_YOURS, IMAGES_TOAST);
  }, [requested, ready, morePages, targets, setSearchParams]);
  return { sharingId, clear: () => setSharingId(null) };
}

/**
 * View Medical Images (docs/product.md › View images): the caller's DICOM studies, one card each, over
 * their own paged list, then the Uploaded and Shared sections of single files over one server-paged list.
 */
export function ViewImagesPage({
  aiPath,
  dicomPath,
}: {
  aiPath: (id: string) => string;
  dicomPath?: (id: string) => string;
}) {
  const user = useAppSelector(selectUser);
  const { displayLocale, displayTimeZone } = usePublicSettings();
  const { images, pagination, page, setPage, loading, answered: imagesKnown, reload } = useImageList(user?.role);
  const studyList = useStudyList(user?.id);
  const [sharing, setSharing] = useState<Image | null>(null);
  const [sharingStudy, setSharingStudy] = useState<StudySummary | null>(null);
  const [verifying, setVerifying] = useState<Image | null>(null);
  const [verifyingStudy, setVerifyingStudy] = useState<StudySummary | null>(null);
  const [deleting, setDeleting] = useState<Image | null>(null);
  const [viewing, setViewing] = useState<Image | null>(null);
  const [linking, setLinking] = useState<ExternalLinkTarget | null>(null);
  const { studies } = studyList;
  const targets = useMemo<LinkTarget[]>(
    () => [
      ...images.map((image) => ({
        sharingId: image.sharingId,
        accessState: image.accessState,
        noun: 'image' as const,
        open: () => setVerifying(image),
      })),
      ...studies.map((study) => ({
        sharingId: study.sharingId,
        accessState: study.accessState,
        noun: 'study' as const,
        open: () => setVerifyingStudy(study),
      })),
    ],
    [images, studies],
  );
  // Both lists answered (a failed study list counts as answered: the images still decide).
  const listsReady =
    !loading && pagination !== null && ((!studyList.loading && studyList.pagination !== null) || studyList.failed);
  const morePages = (pagination?.totalPages ?? 1) > 1 || (studyList.pagination?.totalPages ?? 1) > 1;
  const linked = useVerifyLink(targets, listsReady, morePages);

  // Stable between renders, so that the memoised cards re-render only when their image changes.
  const viewerId = user?.id;
  const viewerRole = user?.role;
  const viewer = useMemo<Viewer | null>(
    () => (viewerId && viewerRole ? { id: viewerId, role: viewerRole } : null),
    [viewerId, viewerRole],
  );
  const handlers = useMemo<CardHandlers>(
    () => ({
      onShare: setSharing,
      onShareByLink: (image) =>
        setLinking({
          kind: 'image',
          imageId: image.id,
          caption: image.caption,
          dicom: image.contentType === 'application/dicom',
        }),
      onVerify: setVerifying,
      onDelete: setDeleting,
      onView: setViewing,
      onDownload: (image) => void download(image),
    }),
    [],
  );

  const { uploaded, shared } = useMemo(() => splitImages(images), [images]);
  const ownSection = user?.role !== 'patient';
  const cardCount = (ownSection ? uploaded.length : 0) + shared.length;
  // The studies section comes above the image cards: they wait until its list has answered, so
  // that it never appears over cards already drawn and pushes them down (a phone on a slow link
  // measured a layout shift of 0.52 when it did). Both lists are read at start-up together. The
  // sections wait for their own list too: drawn before it, the Shared section was pushed down by
  // the Uploaded cards filling in above it (0.036 on Lighthouse's phone when the page's chunks
  // came before the list).
  const listsKnown = studyList.answered && imagesKnown;
  const { budget, allDrawn } = useRevealBudget(cardCount, listsKnown);

  if (!user || !viewer) return null;
  // Image cards in document order within the budget (see useRevealBudget): a section shows once the
  // cards before it are all drawn, the pager and the links below once every card is (or once they were
  // drawn: a list that answers after the page mounted fills the sections already there). Studies come
  // from a list of their own and draw as they arrive.
  const before = { uploaded: 0, shared: ownSection ? uploaded.length : 0 };
  const within = <T,>(items: T[], start: number) => items.slice(0, Math.max(0, budget - start));
  const reached = (start: number, items: unknown[]) =>
    listsKnown && (allDrawn || (items.length === 0 ? budget >= start : budget > start));
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
  const totalItems = pagination?.totalItems ?? images.length;
  // The studies section shows only for someone with studies: single files alone look as they always did.
  const hasStudies = (studyList.pagination?.totalItems ?? studies.length) > 0 || studyList.page > 1;
  // Until the first answer the sections say nothing; then 'none yet' only when the whole list
  // fits on this page, else the section may have images on another page.
  const settled = !loading || images.length > 0;
  const wholeList = totalPages <= 1;
  const uploadedEmpty = !settled ? null : wholeList && hasStudies ? (
    <EmptySection
      title="No single images uploaded."
      next="DICOM studies are listed above, one card each; JPEG, PNG and PDF files appear here."
    />
  ) : wholeList ? (
    <EmptySection
      title="You have not uploaded any images yet."
      next="Upload an image for a patient; it appears here, ready to share from its card."
      action={
        <Button component={RouterLink} to={paths.upload} variant="contained" size="small" startIcon={<UploadIcon />}>
          Upload Image
        </Button>
      }
    />
  ) : (
    <EmptySection title="No uploaded images on this page." next={OTHER_PAGES} />
  );
  const sharedEmpty = !settled ? null : wholeList && hasStudies ? (
    <EmptySection title="No single images shared with you." next="DICOM studies are listed above, one card each." />
  ) : wholeList ? (
    <EmptySection
      title="Nothing has been shared with you yet."
      next={
        user.role === 'patient'
          ? 'When your provider shares an image with you, you receive an e-mail with a sharing id and a code. The image appears here: choose Verify on its card and enter both to open it.'
          : 'When someone shares an image with you, you receive an e-mail with a sharing id and a code. The image appears here: choose Verify on its card and enter both to open it.'
      }
    />
  ) : (
    <EmptySection title="No shared images on this page." next={OTHER_PAGES} />
  );

  const imageKey = (image: Image) => `${image.id}-${image.sharingId ?? 'own'}`;
  const studyCard = (study: StudySummary) => (
    <StudyCard
      study={study}
      viewer={viewer}
      locale={displayLocale}
      timeZone={displayTimeZone}
      studyPath={(studyUid) => `${paths.study}/${studyUid}`}
      onShare={setSharingStudy}
      onVerify={setVerifyingStudy}
    />
  );
  const studyPages = studyList.pagination?.totalPages ?? 1;

  return (
    <>
      <Box sx={{ minHeight: 4, mb: 1 }}>
        {(loading || studyList.loading) && <DelayedLinearProgress aria-label="Loading images" />}
      </Box>
      {hasStudies && (
        <>
          <Section
            title="DICOM Studies"
            items={studies}
            keyOf={(study) => study.sharingId ?? study.studyUid ?? study.createdAt}
            labelOf={(study) => study.caption}
            empty={<EmptySection title="No studies on this page." next={OTHER_PAGES} />}
            render={studyCard}
          />
          {studyPages > 1 && (
            <Box sx={{ mt: -2, mb: 4 }}>
              <PagingControl
                page={studyList.page}
                totalPages={studyPages}
                capped={studyList.pagination?.totalItemsCapped ?? false}
                onChange={studyList.setPage}
                label="Study pages"
                disabled={studyList.loading && studies.length === 0}
              />
            </Box>
          )}
        </>
      )}
      {ownSection && reached(before.uploaded, uploaded) && (
        <Section
          title="Uploaded Images"
          items={within(uploaded, before.uploaded)}
          keyOf={imageKey}
          labelOf={(image) => image.caption}
          empty={uploaded.length === 0 ? uploadedEmpty : null}
          render={card}
        />
      )}
      {reached(before.shared, shared) && (
        <Section
          title="Shared Images"
          items={within(shared, before.shared)}
          keyOf={imageKey}
          labelOf={(image) => image.caption}
          empty={shared.length === 0 ? sharedEmpty : null}
          render={card}
        />
      )}
      {/* A pager over nothing ('1 / 1' on an empty list) only adds noise. */}
      {listsKnown && budget >= cardCount && (totalItems > 0 || page > 1) && (
        <PagingControl
          page={page}
          totalPages={totalPages}
          capped={pagination?.totalItemsCapped ?? false}
          onChange={setPage}
          label="Image pages"
          disabled={loading && images.length === 0}
        />
      )}
      {allDrawn && (
        <ExternalLinksSection
          locale={displayLocale}
          timeZone={displayTimeZone}
          everyone={roleHasAny(user?.role, ['image:view_all'])}
          viewerId={user?.id}
        />
      )}

      <OnceOpened open={sharing !== null}>
        <ShareDialog
          image={sharing}
          viewerId={user.id}
          locale={displayLocale}
          timeZone={displayTimeZone}
          onClose={() => setSharing(null)}
          onShared={reload}
        />
      </OnceOpened>
      <OnceOpened open={sharingStudy !== null}>
        <ShareStudyDialog
          study={sharingStudy?.studyUid ? { ...sharingStudy, studyUid: sharingStudy.studyUid } : null}
          viewerId={user.id}
          locale={displayLocale}
          timeZone={displayTimeZone}
          onClose={() => setSharingStudy(null)}
        />
      </OnceOpened>
      <OnceOpened open={verifying !== null || verifyingStudy !== null || linked.sharingId !== null}>
        <VerifyDialog
          image={verifying}
          study={verifyingStudy}
          linkedSharingId={linked.sharingId}
          onClose={() => {
            setVerifying(null);
            setVerifyingStudy(null);
            linked.clear();
          }}
          onVerified={reload}
        />
      </OnceOpened>
      <OnceOpened open={linking !== null}>
        <ExternalShareDialog
          target={linking}
          locale={displayLocale}
          timeZone={displayTimeZone}
          onClose={() => setLinking(null)}
        />
      </OnceOpened>
      <OnceOpened open={deleting !== null}>
        <DeleteDialog image={deleting} onClose={() => setDeleting(null)} onDeleted={reload} />
      </OnceOpened>
      <OnceOpened open={viewing !== null}>
        <ContentViewerDialog image={viewing} onClose={() => setViewing(null)} />
      </OnceOpened>
    </>
  );
}

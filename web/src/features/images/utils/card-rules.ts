import type { Image, RoleName } from '@medshare/contracts';

export type Viewer = { id: string; role: RoleName };

export type CardActions = {
  share: boolean;
  verify: boolean;
  delete: boolean;
  ai: boolean;
  view: boolean;
  download: boolean;
};

/**
 * What the card shows in place of the picture (`docs/product.md` › States and transitions, "Image
 * card display"): the content only when the viewer is the sharer, has verified, or is an admin, and
 * the server handed out a content path; otherwise the honest state of the viewer's share.
 */
export type CardDisplay =
  { kind: 'content' } | { kind: 'not-verified' } | { kind: 'expired' } | { kind: 'revoked' } | { kind: 'locked' };

const isPatient = (viewer: Viewer) => viewer.role === 'patient';

export function mayShowContent(image: Image, viewer: Viewer): boolean {
  const entitled = image.sharedBy.id === viewer.id || image.isVerified || viewer.role === 'admin';
  // The server is the authority: without a content path there is nothing to show.
  return entitled && image.image_url !== null;
}

export function cardDisplay(image: Image, viewer: Viewer): CardDisplay {
  if (mayShowContent(image, viewer)) return { kind: 'content' };
  switch (image.accessState) {
    case 'expired':
      return { kind: 'expired' };
    case 'revoked':
      return { kind: 'revoked' };
    case 'locked':
      return { kind: 'locked' };
    default:
      return { kind: 'not-verified' };
  }
}

/**
 * `docs/product.md` › States and transitions: uploaded images are those not shared (the list split of the
 * same section).
 */
export const isUploaded = (image: Image) => !image.isShared;

/**
 * Verify is offered while a code can still unlock the share: not for an expired, revoked or
 * locked share, where the server would refuse any code (the card says why instead).
 */
const awaitsCode = (image: Image) => !image.isVerified && image.accessState === 'pending';

/** `docs/product.md` › States and transitions, "Image buttons", one line per rule. */
export function cardActions(image: Image, viewer: Viewer): CardActions {
  const content = mayShowContent(image, viewer);
  return {
    // A non-patient sees Share on own uploaded images.
    share: !isPatient(viewer) && isUploaded(image) && image.uploadedByMe,
    // A non-patient sees Verify on shared images not yet verified; a patient on images not yet verified.
    verify: isPatient(viewer) ? awaitsCode(image) : image.isShared && awaitsCode(image),
    // A non-patient sees delete and Ai when the image is uploaded or verified.
    delete: !isPatient(viewer) && (isUploaded(image) || image.isVerified),
    ai: !isPatient(viewer) && (isUploaded(image) || image.isVerified),
    // View and Download for anyone who may see the content.
    view: content,
    download: content,
  };
}

/**
 * Share by link (`docs/product.md` › View images): the uploader, or the image's own patient once they
 * see it; never a de-identified copy (it names no patient). The server holds the same rule.
 */
export function mayShareByLink(image: Image, viewer: Viewer): boolean {
  if (!mayShowContent(image, viewer)) return false;
  return image.uploadedByMe || (image.patient !== null && image.patient.id === viewer.id);
}

export function splitImages(images: Image[]): { uploaded: Image[]; shared: Image[] } {
  return { uploaded: images.filter(isUploaded), shared: images.filter((i) => i.isShared) };
}

export type ContentKind = 'picture' | 'pdf' | 'dicom' | 'other';

export function contentKind(contentType: string): ContentKind {
  if (contentType === 'image/jpeg' || contentType === 'image/png') return 'picture';
  if (contentType === 'application/pdf') return 'pdf';
  if (contentType === 'application/dicom') return 'dicom';
  return 'other';
}

/**
 * The path whose bytes a card's preview shows: the thumbnail when there is one; a picture whose
 * thumbnail failed falls back to the original. Null when the card shows a state instead
 * (`cardDisplay`) or has no preview to read.
 */
export function previewPath(image: Image, viewer: Viewer): string | null {
  if (cardDisplay(image, viewer).kind !== 'content') return null;
  return (
    image.thumbnailUrl ??
    (contentKind(image.contentType) === 'picture' && image.thumbnailStatus === 'failed' ? image.image_url : null)
  );
}

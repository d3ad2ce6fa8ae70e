import type { Image } from '@medshare/contracts';
import type { Viewer } from './utils/card-rules';

export const PROVIDER: Viewer = { id: '11111111-1111-4111-8111-111111111111', role: 'healthProvider' };
export const OTHER_PROVIDER: Viewer = { id: '22222222-2222-4222-8222-222222222222', role: 'healthProvider' };
export const PATIENT: Viewer = { id: '33333333-3333-4333-8333-333333333333', role: 'patient' };
export const ADMIN: Viewer = { id: '44444444-4444-4444-8444-444444444444', role: 'admin' };

const IMAGE_ID = '55555555-5555-4555-8555-555555555555';

/** An image as its uploader (PROVIDER) sees it; override for other viewers. */
export function makeImage(overrides: Partial<Image> = {}): Image {
  return {
    id: IMAGE_ID,
    caption: 'Chest X-ray',
    contentType: 'image/jpeg',
    sizeBytes: 6412,
    isShared: false,
    isVerified: true,
    uploadedByMe: true,
    sharedBy: { id: PROVIDER.id, firstname: 'Bilal', lastname: 'Khan' },
    patient: { id: PATIENT.id, firstname: 'Amina', lastname: 'Khan' },
    createdAt: '2026-11-22T05:05:00.000Z',
    sharingId: null,
    accessState: 'owner',
    expiresAt: null,
    revokedAt: null,
    thumbnailStatus: 'none',
    thumbnailUrl: null,
    image_url: `/api/images/${IMAGE_ID}/content`,
    ...overrides,
  };
}

/** The same image as a recipient sees it before entering the code. */
export function pendingShare(overrides: Partial<Image> = {}): Image {
  return makeImage({
    isShared: true,
    isVerified: false,
    uploadedByMe: false,
    sharingId: '66666666-6666-4666-8666-666666666666',
    accessState: 'pending',
    image_url: null,
    thumbnailUrl: null,
    ...overrides,
  });
}

/** A recipient after verifying. */
export function verifiedShare(overrides: Partial<Image> = {}): Image {
  return pendingShare({
    isVerified: true,
    accessState: 'verified',
    image_url: `/api/images/${IMAGE_ID}/content`,
    ...overrides,
  });
}

import type { Image, StudyDetail, StudySummary } from '@medshare/contracts';
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

export const STUDY_UID = '2.25.1234567890123456789';
export const STUDY_SHARE_ID = '77777777-7777-4777-8777-777777777777';

/** A study as its uploader (PROVIDER) sees it; override for other viewers. */
export function makeStudy(overrides: Partial<StudySummary> = {}): StudySummary {
  return {
    studyUid: STUDY_UID,
    caption: 'Chest CT March',
    modalities: ['CT'],
    studyDate: '2004-01-19',
    description: 'CT CHEST WITH CONTRAST',
    seriesCount: 2,
    instanceCount: 3,
    thumbnailUrl: null,
    patient: { id: PATIENT.id, firstname: 'Amina', lastname: 'Khan' },
    sharedBy: { id: PROVIDER.id, firstname: 'Bilal', lastname: 'Khan' },
    isShared: false,
    accessState: 'owner',
    sharingId: null,
    deidentified: false,
    expiresAt: null,
    createdAt: '2026-11-22T05:05:00.000Z',
    ...overrides,
  };
}

/** The same study as a recipient sees it before entering the code: no UID, description or thumbnail. */
export function pendingStudy(overrides: Partial<StudySummary> = {}): StudySummary {
  return makeStudy({
    studyUid: null,
    description: null,
    isShared: true,
    accessState: 'pending',
    sharingId: STUDY_SHARE_ID,
    expiresAt: '2026-11-23T05:05:00.000Z',
    ...overrides,
  });
}

/** The study page of makeStudy(): series 1 (2 images) and series 2 (1 image). */
export function makeStudyDetail(overrides: Partial<StudyDetail> = {}): StudyDetail {
  const instance = (n: number, k: number) => ({
    imageId: `aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaa${n}${k}`,
    sopInstanceUid: `2.25.9${n}${k}`,
    instanceNumber: k,
    frames: 1,
  });
  return {
    ...makeStudy(),
    studyUid: STUDY_UID,
    series: [
      {
        seriesUid: '2.25.101',
        modality: 'CT',
        description: 'Axial 5 mm',
        number: 1,
        instanceCount: 2,
        thumbnailUrl: null,
        instances: [instance(1, 1), instance(1, 2)],
      },
      {
        seriesUid: '2.25.102',
        modality: 'CT',
        description: 'Coronal',
        number: 2,
        instanceCount: 1,
        thumbnailUrl: null,
        instances: [instance(2, 1)],
      },
    ],
    ...overrides,
  };
}

import { type DicomItem, type Image, ImagePaths } from '@medshare/contracts';
import type { ImageRow } from '../../db/schema.ts';
import type { Actor } from '../auth/actor.ts';
import { shareState } from '../sharing/share-state.ts';
import { type Access, accessOf } from './access-policy.ts';
import type { ImageWithPeople, ShareWithCreator } from './images.repository.ts';

/**
 * An image's DICOM attributes, for image cards and the DICOM metadata answer alike: never PHI;
 * the UIDs only for viewers of the content (`content`), since they can identify a study.
 */
export function dicomItem(image: ImageRow, content: boolean): DicomItem {
  return {
    kind: image.dicom_kind ?? 'document',
    modality: image.dicom_modality,
    bodyPart: image.dicom_body_part,
    studyDate: image.dicom_study_date,
    rows: image.dicom_rows,
    columns: image.dicom_columns,
    frames: image.dicom_frames,
    bitsAllocated: image.dicom_bits_allocated,
    bitsStored: image.dicom_bits_stored,
    photometricInterpretation: image.dicom_photometric,
    transferSyntaxUid: image.dicom_transfer_syntax,
    deidentified: image.deidentified,
    studyInstanceUid: content ? image.dicom_study_uid : null,
    seriesInstanceUid: content ? image.dicom_series_uid : null,
    sopInstanceUid: content ? image.dicom_sop_instance_uid : null,
  };
}

/** One image card as `actor` sees it; `share` is the share that brought it to them (null for own and admin-listed). */
export function presentImage(
  actor: Pick<Actor, 'userId' | 'permissions'>,
  image: ImageWithPeople,
  share: ShareWithCreator | null,
  sortAt: Date,
): Image {
  const uploadedByMe = image.uploader_id === actor.userId;
  const access: Pick<Access, 'state' | 'content'> = accessOf(actor, image, share) ?? {
    state: 'revoked',
    content: false,
  };
  return {
    id: image.id,
    caption: image.caption,
    contentType: image.content_type,
    sizeBytes: image.size_bytes,
    isShared: !uploadedByMe,
    isVerified: access.content,
    uploadedByMe,
    sharedBy: share
      ? { id: share.created_by, firstname: share.creator_firstname, lastname: share.creator_lastname }
      : { id: image.uploader_id, firstname: image.uploader_firstname, lastname: image.uploader_lastname },
    patient: image.patient_id
      ? { id: image.patient_id, firstname: image.patient_firstname ?? '', lastname: image.patient_lastname ?? '' }
      : null,
    createdAt: sortAt.toISOString(),
    // An image of a study share is opened by the study share's id and code: that is the id the recipient knows.
    sharingId: share ? (share.group_id ?? share.id) : null,
    accessState: uploadedByMe || !share ? 'owner' : shareState(share),
    expiresAt: share?.expires_at?.toISOString() ?? null,
    revokedAt: share?.revoked_at?.toISOString() ?? null,
    thumbnailStatus: image.thumbnail_status,
    thumbnailUrl: access.content && image.thumbnail_status === 'ready' ? ImagePaths.thumbnail(image.id) : null,
    image_url: access.content ? ImagePaths.content(image.id) : null,
    ...(image.content_type === 'application/dicom' && image.dicom_kind
      ? { dicom: dicomItem(image, access.content) }
      : {}),
  };
}

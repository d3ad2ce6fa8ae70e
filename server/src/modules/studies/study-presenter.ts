import { type AccessState, ImagePaths, type StudySummary } from '@medshare/contracts';
import { shareState } from '../sharing/share-state.ts';
import type {
  GroupWithCreator,
  NewestImage,
  ShareWithCreator,
  StudyAggregate,
  StudyEntry,
} from './studies.repository.ts';

/** How the viewer reaches a card: as its owner (uploader or admin), or through one share. */
export interface CardAccess {
  state: AccessState;
  /** May see the content: UIDs, the Study Description, thumbnails. */
  content: boolean;
  sharingId: string | null;
  expiresAt: Date | null;
  sharedBy: { id: string; firstname: string; lastname: string } | null;
  deidentified: boolean;
}

/** The access a card gives: owner for own (and admin) cards, else the share's (the group's for a study share). */
export function cardAccess(
  entry: StudyEntry,
  agg: StudyAggregate,
  shares: Map<string, ShareWithCreator>,
  groups: Map<string, GroupWithCreator>,
): CardAccess {
  if (entry.via === null)
    return { state: 'owner', content: true, sharingId: null, expiresAt: null, sharedBy: null, deidentified: false };
  const share = agg.group_id ? groups.get(agg.group_id) : agg.share_id ? shares.get(agg.share_id) : undefined;
  if (!share)
    return { state: 'revoked', content: false, sharingId: null, expiresAt: null, sharedBy: null, deidentified: false };
  const state = shareState(share);
  return {
    state,
    content: state === 'verified',
    sharingId: share.id,
    expiresAt: share.expires_at,
    sharedBy: { id: share.created_by, firstname: share.creator_firstname, lastname: share.creator_lastname },
    deidentified: 'deidentified' in share ? share.deidentified : false,
  };
}

/**
 * One study card as the viewer sees it. Like an image card (images/image-presenter.ts): the UIDs,
 * the Study Description and the thumbnail only for viewers of the content, since they can identify
 * a study; counts, modalities and the date as the image card shows them.
 */
export function presentStudy(
  entry: StudyEntry,
  agg: StudyAggregate,
  newest: NewestImage,
  access: CardAccess,
  description: string | null,
): StudySummary {
  return {
    studyUid: access.content ? agg.study_uid : null,
    caption: newest.caption,
    modalities: [...agg.modalities].sort(),
    studyDate: agg.study_date,
    description: access.content ? description : null,
    seriesCount: agg.series,
    instanceCount: agg.instances,
    thumbnailUrl: access.content && agg.thumb_id ? ImagePaths.thumbnail(agg.thumb_id) : null,
    patient: newest.patient_id
      ? { id: newest.patient_id, firstname: newest.patient_firstname ?? '', lastname: newest.patient_lastname ?? '' }
      : null,
    sharedBy: access.sharedBy ?? {
      id: newest.uploader_id,
      firstname: newest.uploader_firstname,
      lastname: newest.uploader_lastname,
    },
    isShared: entry.via !== null || agg.own === 0,
    accessState: access.state,
    sharingId: access.sharingId,
    deidentified: access.deidentified || agg.deidentified,
    expiresAt: access.expiresAt?.toISOString() ?? null,
    createdAt: new Date(entry.sort_at).toISOString(),
  };
}

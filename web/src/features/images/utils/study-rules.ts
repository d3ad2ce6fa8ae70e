import type { StudySummary } from '@medshare/contracts';
import type { Viewer } from './card-rules';

/** What a study card shows in place of its thumbnail: the study, or the honest state of the viewer's share. */
export type StudyDisplay = 'content' | 'not-verified' | 'expired' | 'revoked' | 'locked';

/** The server hands out the study's UID only to a viewer of its content. */
export const mayOpenStudy = (study: StudySummary) => study.studyUid !== null;

export function studyDisplay(study: StudySummary): StudyDisplay {
  if (mayOpenStudy(study)) return 'content';
  switch (study.accessState) {
    case 'expired':
    case 'revoked':
    case 'locked':
      return study.accessState;
    default:
      return 'not-verified';
  }
}

/**
 * `docs/product.md` › States and transitions, "Study buttons": Open for whoever may see the study;
 * Share for a non-patient on their own uploaded study; Verify while a code can still unlock the share.
 */
export function studyActions(study: StudySummary, viewer: Viewer) {
  return {
    open: mayOpenStudy(study),
    share: viewer.role !== 'patient' && !study.isShared && mayOpenStudy(study),
    verify: study.accessState === 'pending' && study.sharingId !== null,
  };
}

/**
 * Share by link for a study the viewer may open: their own upload, or their own studies as the
 * patient; never a de-identified copy. The server answers which of its images the link opens.
 */
export function studyMayShareByLink(study: StudySummary, viewer: Viewer): boolean {
  if (!mayOpenStudy(study) || study.deidentified) return false;
  return !study.isShared || (study.patient !== null && study.patient.id === viewer.id);
}

/** '2 series · 3 images' */
export function studyCounts(study: Pick<StudySummary, 'seriesCount' | 'instanceCount'>): string {
  const images = `${study.instanceCount} ${study.instanceCount === 1 ? 'image' : 'images'}`;
  return `${study.seriesCount} series · ${images}`;
}

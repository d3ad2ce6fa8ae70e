import type { User } from '@medshare/contracts';
import type { AppDispatch } from '../../../lib/store';
import { previewPath, splitImages } from '../utils/card-rules';
import { imageContentApi } from './image-content';
import { firstImagePage, imageListApi, imageListOpening } from './list-images';
import { FIRST_STUDY_PAGE, studyListApi, studyListOpening } from './list-studies';

/** The cards a phone shows without scrolling, and a desktop's first rows: their previews are read at once. */
const PREFETCHED_PREVIEWS = 4;

/**
 * Starts reading what View Images shows first, when the app starts on that page (main.tsx): page 1
 * of the image list, then the first cards' previews, and page 1 of the study list, with the session's
 * bearer header as always. Left to the page, the lists are asked for only after the page's code has
 * arrived and rendered, and each preview only after the list has rendered its card: on a slow phone
 * the first picture came seconds later. The page then finds them in the server-state cache
 * (useImageList and useStudyList count these reads as the page's opening reads instead of asking
 * again). The study list goes out beside the image list: the image cards wait for it (the studies
 * section comes above them, view-images-page.tsx), so it must not start later.
 */
export function prefetchViewImages(dispatch: AppDispatch, user: User): void {
  const args = firstImagePage(user.role);
  imageListOpening.note(args.role);
  studyListOpening.note(user.id);
  void dispatch(studyListApi.endpoints.listStudies.initiate(FIRST_STUDY_PAGE, { subscribe: false }));
  void dispatch(imageListApi.endpoints.listImages.initiate(args, { subscribe: false })).then(({ data }) => {
    if (!data) return;
    const viewer = { id: user.id, role: user.role };
    // In the order the page shows them: the Uploaded section, then the Shared one.
    const { uploaded, shared } = splitImages(data.images);
    const ordered = user.role === 'patient' ? shared : [...uploaded, ...shared];
    for (const image of ordered.slice(0, PREFETCHED_PREVIEWS)) {
      const path = previewPath(image, viewer);
      if (path) void dispatch(imageContentApi.util.prefetch('imageBlob', path, {}));
    }
  });
}

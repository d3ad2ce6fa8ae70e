import { ApiPaths } from '@medshare/contracts/paths';
import type { Image, Pagination, RoleName } from '@medshare/contracts';
import type { ApiResult } from '../../../lib/api-client';
import { apiSlice } from '../../../lib/api-slice';
import { createOpeningRead } from './opening-read';

/**
 * `docs/product.md` › Roles and what each sees: providers load their list, patients theirs, every other role
 * (admin) the full list.
 */
export function imageListPath(role: RoleName | undefined): string {
  if (role === 'healthProvider') return ApiPaths.myImages;
  if (role === 'patient') return ApiPaths.sharedImages;
  return ApiPaths.allImages;
}

export type ImageListArgs = { role: RoleName | undefined; page: number; limit: number };

export const IMAGES_PAGE_SIZE = 10;

/** Page 1 as the page asks for it: a read started before the page mounted must use the same key. */
export const firstImagePage = (role: RoleName | undefined): ImageListArgs => ({
  role,
  page: 1,
  limit: IMAGES_PAGE_SIZE,
});

/** Page 1's read started before the page first mounted, by the role it was for. */
export const imageListOpening = createOpeningRead<RoleName | undefined>();

export type ImagePage = { images: Image[]; pagination: Pagination | null };

/** The tag every write that adds, removes or changes an image (or its access) invalidates. */
export const IMAGE_LIST_TAG = { type: 'Images', id: 'LIST' } as const;

export const imageListApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    listImages: build.query<ImagePage, ImageListArgs>({
      // The DICOM instances of a study are listed by study (list-studies.ts): files only here.
      query: ({ role, page, limit }) => ({ url: imageListPath(role), query: { page, limit, kind: 'files' } }),
      transformResponse: (result: ApiResult<unknown>) => ({
        images: result.data as Image[],
        pagination: result.pagination ?? null,
      }),
      providesTags: (result) => [
        IMAGE_LIST_TAG,
        ...(result?.images ?? []).map((image) => ({ type: 'Images' as const, id: image.id })),
      ],
    }),
  }),
});

export const { useListImagesQuery } = imageListApi;

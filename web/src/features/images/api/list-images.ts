import { ApiPaths } from '@medshare/contracts/paths';
import type { Image, RoleName } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

/** Spec §6: providers load their list, patients theirs, every other role (admin) the full list. */
export function imageListPath(role: RoleName | undefined): string {
  if (role === 'healthProvider') return ApiPaths.myImages;
  if (role === 'patient') return ApiPaths.sharedImages;
  return ApiPaths.allImages;
}

export function listImages(role: RoleName | undefined, page: number, limit: number, signal?: AbortSignal) {
  return api.get<Image[]>(imageListPath(role), { query: { page, limit }, signal });
}

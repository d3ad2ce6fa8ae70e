import { ApiPaths } from '@medshare/contracts/paths';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

export function deleteImage(id: string) {
  return api.delete<null>(`${ApiPaths.uploadImage}/${id}`);
}

export function useDeleteImage() {
  return useMutation(deleteImage);
}

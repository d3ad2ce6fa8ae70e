import { ApiPaths } from '@medshare/contracts/paths';
import type { UpdateProfileBody, User } from '@medshare/contracts';
import { api } from '../../../lib/api-client';
import { useMutation } from '../../../lib/use-mutation';

export function updateProfile(body: UpdateProfileBody) {
  return api.put<User>(ApiPaths.profile, body);
}

export function useUpdateProfile() {
  return useMutation(updateProfile);
}

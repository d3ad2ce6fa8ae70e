import type { UserProfileView } from '@medshare/contracts';
import { ApiError } from '../../../lib/api-client';
import { useGetUserQuery } from '../api/get-user';

export type UserProfileState =
  { status: 'loading' } | { status: 'ready'; profile: UserProfileView } | { status: 'not-found' } | { status: 'error' };

/** Another user's profile, read again each time the page opens (an admin may have changed it). */
export function useUserProfile(id: string | undefined) {
  const { currentData, error, isError, refetch } = useGetUserQuery(id ?? '', {
    skip: !id,
    refetchOnMountOrArgChange: true,
  });
  let state: UserProfileState = { status: 'loading' };
  if (isError) {
    // A malformed id (400) is as unknown as a missing one (404).
    const gone = error instanceof ApiError && (error.status === 404 || error.status === 400);
    state = { status: gone ? 'not-found' : 'error' };
  } else if (currentData) state = { status: 'ready', profile: currentData };
  return { state, reload: () => void refetch() };
}

import { useEffect } from 'react';
import { useGetProfileQuery } from '../api/get-profile';
import { setUser } from '../../../lib/session';
import { useAppDispatch } from '../../../lib/store';

/**
 * Reloads the signed-in user when the shell mounts: picks up changes an admin made, and an
 * expired token is found at once (the API client then ends the session) rather than on the
 * first click. Offline, the stored user stays; real session ends are handled centrally.
 */
export function useProfileRefresh(enabled: boolean) {
  const dispatch = useAppDispatch();
  const { data: user } = useGetProfileQuery(undefined, { skip: !enabled, refetchOnMountOrArgChange: true });
  useEffect(() => {
    if (user) dispatch(setUser({ user }));
  }, [user, dispatch]);
}

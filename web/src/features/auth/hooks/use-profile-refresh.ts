import { useEffect } from 'react';
import { getProfile } from '../api/get-profile';
import { setUser } from '../../../lib/session';
import { useAppDispatch } from '../../../lib/store';

/**
 * Reloads the signed-in user when the shell mounts: picks up changes an admin made, and an
 * expired token is found at once (the API client then ends the session) rather than on the
 * first click.
 */
export function useProfileRefresh(enabled: boolean) {
  const dispatch = useAppDispatch();
  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    getProfile(controller.signal)
      .then((result) => dispatch(setUser({ user: result.data })))
      .catch(() => {
        // Offline or aborted: keep showing the stored user; real session ends are handled centrally.
      });
    return () => controller.abort();
  }, [enabled, dispatch]);
}

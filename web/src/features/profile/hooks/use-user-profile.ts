import type { UserProfileView } from '@medshare/contracts';
import { useEffect, useState } from 'react';
import { ApiError } from '../../../lib/api-client';
import { getUser } from '../api/get-user';

export type UserProfileState =
  { status: 'loading' } | { status: 'ready'; profile: UserProfileView } | { status: 'not-found' } | { status: 'error' };

export function useUserProfile(id: string | undefined) {
  const [state, setState] = useState<UserProfileState>({ status: 'loading' });
  const [reloadKey, setReloadKey] = useState(0);

  useEffect(() => {
    if (!id) return;
    const controller = new AbortController();
    setState({ status: 'loading' });
    getUser(id, controller.signal)
      .then((result) => setState({ status: 'ready', profile: result.data }))
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        // A malformed id (400) is as unknown as a missing one (404).
        const gone = error instanceof ApiError && (error.status === 404 || error.status === 400);
        setState({ status: gone ? 'not-found' : 'error' });
      });
    return () => controller.abort();
  }, [id, reloadKey]);

  return { state, reload: () => setReloadKey((k) => k + 1) };
}

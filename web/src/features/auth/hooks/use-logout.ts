import { AuthMessages } from '@medshare/contracts/constants';
import { useNavigate } from 'react-router';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-client';
import { toast } from '../../../lib/notify';
import { clearSession } from '../../../lib/session';
import { persistor, useAppDispatch } from '../../../lib/store';
import { useLogoutMutation } from '../api/logout';

/** Logs out on the server, and forgets the session locally whatever the server said. */
export function useLogout() {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [logout, { isLoading: isPending }] = useLogoutMutation();

  async function logoutAndLeave() {
    try {
      const result = await logout().unwrap();
      toast.success(result.message ?? AuthMessages.loggedOut);
    } catch (error) {
      // A 401 means the server had already ended this session: the user is logged out.
      if (error instanceof ApiError && error.status === 401) toast.success(AuthMessages.loggedOut);
      else toast.error('Logout failed. Please try again.');
    } finally {
      dispatch(clearSession());
      await persistor.flush();
      navigate(paths.login, { replace: true });
    }
  }

  return { logout: logoutAndLeave, isPending };
}

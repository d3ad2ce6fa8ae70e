import { Navigate, Outlet, useLocation } from 'react-router';
import { paths } from '../config/paths';
import { selectToken } from '../lib/session';
import { useAppSelector } from '../lib/store';

/** Signed-in pages: without a token, go to the login page (spec §2). The server still decides access. */
export function RequireAuth() {
  const token = useAppSelector((state) => selectToken(state));
  const location = useLocation();
  if (!token) return <Navigate to={paths.login} replace state={{ from: location.pathname }} />;
  return <Outlet />;
}

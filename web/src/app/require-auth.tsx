import { useState } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { paths } from '../config/paths';
import { selectToken } from '../lib/session';
import { useAppSelector } from '../lib/store';
import { rememberReturnPath } from '../lib/return-path';

/**
 * Signed-in pages: without a token, go to the login page (`docs/product.md` › Screens and routes). The server
 * still decides access.
 */
export function RequireAuth() {
  const token = useAppSelector((state) => selectToken(state));
  const location = useLocation();
  // Signed out on arrival (a link from a mail): come back here after signing in. Not when the
  // session ends while the page is open (logout), so the next person starts on their own page.
  const [signedOutOnArrival] = useState(!token);
  if (!token) {
    const from = `${location.pathname}${location.search}`;
    if (signedOutOnArrival) rememberReturnPath(from);
    return <Navigate to={paths.login} replace state={{ from }} />;
  }
  return <Outlet />;
}

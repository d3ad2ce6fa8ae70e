import { Outlet, useLocation } from 'react-router';
import { canOpenPage } from '../components/layout/page-access';
import { selectUser } from '../lib/session';
import { useAppSelector } from '../lib/store';
import { NotAvailable } from './not-available';

/** Signed-in pages the role may not use show one friendly page (the same rule hides their menu items). */
export function RequirePageAccess() {
  const user = useAppSelector(selectUser);
  const { pathname } = useLocation();
  if (!canOpenPage(user?.role, pathname)) return <NotAvailable role={user?.role} />;
  return <Outlet />;
}

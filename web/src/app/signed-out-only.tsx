import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { startPageFor } from '../components/layout/page-access';
import { selectToken, selectUser } from '../lib/session';
import { useAppSelector } from '../lib/store';

/** Login and registration are for people not signed in: a signed-in user goes to their start page. */
export function SignedOutOnly({ children }: { children: ReactNode }) {
  const token = useAppSelector(selectToken);
  const user = useAppSelector(selectUser);
  if (token) return <Navigate to={startPageFor(user?.role)} replace />;
  return children;
}

import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { AppShell } from '../../../components/layout/app-shell';
import { RouteFallback } from '../../../components/ui/route-fallback';
import { useLogout } from '../../../features/auth/hooks/use-logout';
import { useProfileRefresh } from '../../../features/auth/hooks/use-profile-refresh';
import { selectToken, selectUser } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';

/** The signed-in frame; pages load inside it so the menu stays put while one arrives. */
export default function AppLayoutRoute() {
  const user = useAppSelector(selectUser);
  const token = useAppSelector(selectToken);
  const { logout, isPending } = useLogout();
  useProfileRefresh(Boolean(token));

  return (
    <AppShell user={user} onLogout={() => void logout()} loggingOut={isPending}>
      <Suspense fallback={<RouteFallback />}>
        <Outlet />
      </Suspense>
    </AppShell>
  );
}

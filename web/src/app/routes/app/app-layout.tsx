import { memo, Suspense } from 'react';
import { Outlet } from 'react-router';
import { AppShell } from '../../../components/layout/app-shell';
import { RouteFallback } from '../../../components/ui/route-fallback';
import { SessionWatch } from '../../../features/auth/components/session-watch';
import { useLogout } from '../../../features/auth/hooks/use-logout';
import { useProfileRefresh } from '../../../features/auth/hooks/use-profile-refresh';
import { selectToken, selectUser } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';

/**
 * The profile reload, in a component of its own that draws nothing: its read's pending and answered
 * states re-render only it, not the frame and the page inside it.
 */
const ProfileRefresh = memo(function ProfileRefresh() {
  const token = useAppSelector(selectToken);
  useProfileRefresh(Boolean(token));
  return null;
});

const page = (
  <Suspense fallback={<RouteFallback />}>
    <Outlet />
  </Suspense>
);

/** The signed-in frame; pages load inside it so the menu stays put while one arrives. */
export default function AppLayoutRoute() {
  const user = useAppSelector(selectUser);
  const { logout, isPending } = useLogout();

  return (
    <>
      <ProfileRefresh />
      <SessionWatch onLogout={() => void logout()} />
      <AppShell user={user} onLogout={() => void logout()} loggingOut={isPending}>
        {page}
      </AppShell>
    </>
  );
}

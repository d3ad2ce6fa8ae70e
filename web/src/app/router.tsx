import { isValidElement, Suspense, type ReactNode } from 'react';
import { BrowserRouter, matchRoutes, Outlet, useLocation, type RouteObject } from 'react-router';
import { LogoutContext } from '../components/layout/logout-context';
import { RouteFallback } from '../components/ui/route-fallback';
import { paths } from '../config/paths';
import { useLogout } from '../features/auth/hooks/use-logout';
import { useDropStaticCopyElsewhere } from '../lib/prerendered';
import { useDismissErrorToastsOnPageChange } from './dismiss-errors-on-page-change';
import { lazyPage, pageLoader } from './lazy-page';
import { RequireAuth } from './require-auth';
import { RequirePageAccess } from './require-page-access';
import { RoutesWithBoundary } from './route-error';
import { SignedOutOnly } from './signed-out-only';

// Every page is its own chunk: the first visit downloads only the page it opens (app/lazy-page.tsx).
const Landing = lazyPage(() => import('./routes/landing'), 'Landing');
const ShareImage = lazyPage(() => import('./routes/share-image'), 'ShareImage');
const ExternalLink = lazyPage(() => import('./routes/external-link'), 'ExternalLink');
const Login = lazyPage(() => import('./routes/login'), 'Login');
const Register = lazyPage(() => import('./routes/register'), 'Register');
const VerifyAccount = lazyPage(() => import('./routes/verify-account'), 'VerifyAccount');
const ForgotPassword = lazyPage(() => import('./routes/forgot-password'), 'ForgotPassword');
const ResetPassword = lazyPage(() => import('./routes/reset-password'), 'ResetPassword');
const NotFound = lazyPage(() => import('./routes/not-found'), 'NotFound');
const AppLayout = lazyPage(() => import('./routes/app/app-layout'), 'AppLayout');
const Dashboard = lazyPage(() => import('./routes/app/dashboard'), 'Dashboard');
const AdminDashboard = lazyPage(() => import('./routes/app/admin-dashboard'), 'AdminDashboard');
const Profile = lazyPage(() => import('./routes/app/profile'), 'Profile');
const UserProfile = lazyPage(() => import('./routes/app/user-profile'), 'UserProfile');
const Upload = lazyPage(() => import('./routes/app/upload'), 'Upload');
const ViewImages = lazyPage(() => import('./routes/app/view-images'), 'ViewImages');
const Messages = lazyPage(() => import('./routes/app/messages'), 'Messages');
const AuditLogs = lazyPage(() => import('./routes/app/audit-logs'), 'AuditLogs');
const RolesPermissions = lazyPage(() => import('./routes/app/roles-permissions'), 'RolesPermissions');
const AppSettings = lazyPage(() => import('./routes/app/app-settings'), 'AppSettings');
const AiAnalysis = lazyPage(() => import('./routes/app/ai-analysis'), 'AiAnalysis');
const Study = lazyPage(() => import('./routes/app/study'), 'Study');
// Cornerstone3D is large; this import keeps it out of every other page's download.
const DicomViewer = lazyPage(() => import('../features/dicom-viewer/dicom-viewer-route'), 'DicomViewer');
const SeriesViewer = lazyPage(() => import('../features/dicom-viewer/series-viewer-route'), 'SeriesViewer');

function RootLayout() {
  const { logout, isPending } = useLogout();
  useDismissErrorToastsOnPageChange();
  useDropStaticCopyElsewhere(useLocation().pathname);
  return (
    <LogoutContext value={{ logout: () => void logout(), loggingOut: isPending }}>
      <Suspense fallback={<RouteFallback />}>
        <Outlet />
      </Suspense>
    </LogoutContext>
  );
}

/** Route paths relative to '/', taken from the one list in config/paths. */
const rel = (path: string) => path.replace(/^\//, '');

export const routes: RouteObject[] = [
  {
    path: paths.home,
    element: <RootLayout />,
    children: [
      { index: true, element: <Landing /> },
      { path: rel(paths.shareImage), element: <ShareImage /> },
      // No account and no app shell: the link's cookie is its only credential.
      { path: rel(paths.externalLink), element: <ExternalLink /> },
      {
        path: rel(paths.login),
        element: (
          <SignedOutOnly>
            <Login />
          </SignedOutOnly>
        ),
      },
      {
        path: rel(paths.register),
        element: (
          <SignedOutOnly>
            <Register />
          </SignedOutOnly>
        ),
      },
      { path: rel(paths.verifyAccount), element: <VerifyAccount /> },
      { path: rel(paths.forgotPassword), element: <ForgotPassword /> },
      { path: rel(paths.resetPassword), element: <ResetPassword /> },
      {
        element: <RequireAuth />,
        children: [
          {
            element: <AppLayout />,
            children: [
              {
                // One rule for every page: a role that may not use a page sees 'Not available for your role'.
                element: <RequirePageAccess />,
                children: [
                  { path: rel(paths.dashboard), element: <Dashboard /> },
                  { path: rel(paths.adminDashboard), element: <AdminDashboard /> },
                  { path: rel(paths.profile), element: <Profile /> },
                  { path: `${rel(paths.userProfile)}/:id?`, element: <UserProfile /> },
                  { path: rel(paths.upload), element: <Upload /> },
                  { path: rel(paths.viewImages), element: <ViewImages /> },
                  { path: rel(paths.messages), element: <Messages /> },
                  { path: rel(paths.auditLogs), element: <AuditLogs /> },
                  { path: rel(paths.rolesPermissions), element: <RolesPermissions /> },
                  { path: rel(paths.appSettings), element: <AppSettings /> },
                  { path: `${rel(paths.aiAnalysis)}/:id?`, element: <AiAnalysis /> },
                  { path: `${rel(paths.dicomViewer)}/:id`, element: <DicomViewer /> },
                  { path: rel(paths.series), element: <SeriesViewer /> },
                  { path: `${rel(paths.study)}/:studyUid`, element: <Study /> },
                ],
              },
            ],
          },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
];

/**
 * Starts downloading the chunks of every lazily loaded page that `pathname` opens, all at once
 * (main.tsx, before the first render). Left to React, they load one level at a time: the signed-in
 * frame's chunk must arrive and render before the page inside it is even requested (View Images:
 * one more round trip and render on a slow link). The pages below RequireAuth are skipped when no
 * session is stored: that visitor goes to the login page instead. The imports are the pages' own,
 * so the browser fetches each chunk once. Settles once all have arrived or failed.
 */
export function preloadRouteChunks(pathname: string, signedIn: boolean): Promise<void> {
  const loading: Promise<unknown>[] = [];
  for (const { route } of matchRoutes(routes, pathname) ?? []) {
    let element: ReactNode = route.element;
    while (isValidElement(element)) {
      if (element.type === RequireAuth && !signedIn) return settled(loading);
      const start = pageLoader(element.type);
      if (start) {
        loading.push(start());
        break;
      }
      element = (element.props as { children?: ReactNode }).children;
    }
  }
  return settled(loading);
}

// A failed download shows when React renders the page (RouteErrorBoundary); nothing to do here.
const settled = (loading: Promise<unknown>[]) => Promise.allSettled(loading).then(() => undefined);

/**
 * React Router in its declarative mode: the app uses no loaders, actions or fetchers, and the data
 * router behind `createBrowserRouter` is 59 KB more of the entry every first visit downloads and
 * runs before anything is painted (docs/decisions.md › Routing without the data router).
 */
export function AppRouter() {
  return (
    <BrowserRouter>
      <RoutesWithBoundary routes={routes} />
    </BrowserRouter>
  );
}

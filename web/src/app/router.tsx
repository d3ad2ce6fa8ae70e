import { isValidElement, lazy, Suspense, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { BrowserRouter, matchRoutes, Outlet, useLocation, type RouteObject } from 'react-router';
import { LogoutContext } from '../components/layout/logout-context';
import { RouteFallback } from '../components/ui/route-fallback';
import { paths } from '../config/paths';
import { useLogout } from '../features/auth/hooks/use-logout';
import { useDropStaticCopyElsewhere } from '../lib/prerendered';
import { useDismissErrorToastsOnPageChange } from './dismiss-errors-on-page-change';
import { RequireAuth } from './require-auth';
import { RequirePageAccess } from './require-page-access';
import { RoutesWithBoundary } from './route-error';
import { SignedOutOnly } from './signed-out-only';

// Every page is its own chunk: the first visit downloads only the page it opens.
type PageModule = { default: ComponentType };
/** Each lazily loaded page's import, so that preloadRouteChunks can start it before React asks for it. */
const pageLoaders = new Map<unknown, () => Promise<PageModule>>();
const page = (load: () => Promise<PageModule>): LazyExoticComponent<ComponentType> => {
  const component = lazy(load);
  pageLoaders.set(component, load);
  return component;
};

const Landing = page(() => import('./routes/landing'));
const ShareImage = page(() => import('./routes/share-image'));
const ExternalLink = page(() => import('./routes/external-link'));
const Login = page(() => import('./routes/login'));
const Register = page(() => import('./routes/register'));
const VerifyAccount = page(() => import('./routes/verify-account'));
const ForgotPassword = page(() => import('./routes/forgot-password'));
const ResetPassword = page(() => import('./routes/reset-password'));
const NotFound = page(() => import('./routes/not-found'));
const AppLayout = page(() => import('./routes/app/app-layout'));
const Dashboard = page(() => import('./routes/app/dashboard'));
const AdminDashboard = page(() => import('./routes/app/admin-dashboard'));
const Profile = page(() => import('./routes/app/profile'));
const UserProfile = page(() => import('./routes/app/user-profile'));
const Upload = page(() => import('./routes/app/upload'));
const ViewImages = page(() => import('./routes/app/view-images'));
const Messages = page(() => import('./routes/app/messages'));
const AuditLogs = page(() => import('./routes/app/audit-logs'));
const RolesPermissions = page(() => import('./routes/app/roles-permissions'));
const AppSettings = page(() => import('./routes/app/app-settings'));
const AiAnalysis = page(() => import('./routes/app/ai-analysis'));
const Study = page(() => import('./routes/app/study'));
// Cornerstone3D is large; this import keeps it out of every other page's download.
const DicomViewer = page(() => import('../features/dicom-viewer/dicom-viewer-route'));
const SeriesViewer = page(() => import('../features/dicom-viewer/series-viewer-route'));

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
 * session is stored: that visitor goes to the login page instead. The import() calls are the ones
 * `lazy` makes later, so the browser fetches each chunk once.
 */
export function preloadRouteChunks(pathname: string, signedIn: boolean): void {
  for (const { route } of matchRoutes(routes, pathname) ?? []) {
    let element: ReactNode = route.element;
    while (isValidElement(element)) {
      if (element.type === RequireAuth && !signedIn) return;
      const load = pageLoaders.get(element.type);
      if (load) {
        // A failed download shows when React renders the page (RouteErrorBoundary); nothing to do here.
        load().catch(() => undefined);
        break;
      }
      element = (element.props as { children?: ReactNode }).children;
    }
  }
}

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

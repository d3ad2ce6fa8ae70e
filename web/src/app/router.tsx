import { isValidElement, Suspense, type ReactNode } from 'react';
import { BrowserRouter, matchRoutes, Outlet, useLocation, type RouteObject } from 'react-router';
import { LogoutContext } from '../components/layout/logout-context';
import { RouteFallback } from '../components/ui/route-fallback';
import { paths } from '../config/paths';
import { useLogout } from '../features/auth/hooks/use-logout';
import { useDropStaticCopyElsewhere } from '../lib/prerendered';
import { useDismissErrorToastsOnPageChange } from './dismiss-errors-on-page-change';
import { lazyPage, pageFile, pageLoader, type PageModule } from './lazy-page';
import { RequireAuth } from './require-auth';
import { RequirePageAccess } from './require-page-access';
import { RoutesWithBoundary } from './route-error';
import { SignedOutOnly } from './signed-out-only';

// Every page is its own chunk: the first visit downloads only the page it opens (app/lazy-page.tsx).
// Each is named by its file, from which the build lists the chunks each route needs, for the
// server to preload with the HTML (web/build/route-preloads.ts).
const pageModules = import.meta.glob<PageModule>([
  './routes/**/*.tsx',
  '../features/dicom-viewer/*-route.tsx',
  '!**/*.test.tsx',
]);
function page(file: string, name: string) {
  const load = pageModules[file];
  if (!load) throw new Error(`router: no page module ${file}`);
  return lazyPage(load, name, file);
}
const Landing = page('./routes/landing.tsx', 'Landing');
const ShareImage = page('./routes/share-image.tsx', 'ShareImage');
const ExternalLink = page('./routes/external-link.tsx', 'ExternalLink');
const Login = page('./routes/login.tsx', 'Login');
const Register = page('./routes/register.tsx', 'Register');
const VerifyAccount = page('./routes/verify-account.tsx', 'VerifyAccount');
const ForgotPassword = page('./routes/forgot-password.tsx', 'ForgotPassword');
const ResetPassword = page('./routes/reset-password.tsx', 'ResetPassword');
const NotFound = page('./routes/not-found.tsx', 'NotFound');
const AppLayout = page('./routes/app/app-layout.tsx', 'AppLayout');
const Dashboard = page('./routes/app/dashboard.tsx', 'Dashboard');
const AdminDashboard = page('./routes/app/admin-dashboard.tsx', 'AdminDashboard');
const Profile = page('./routes/app/profile.tsx', 'Profile');
const UserProfile = page('./routes/app/user-profile.tsx', 'UserProfile');
const Upload = page('./routes/app/upload.tsx', 'Upload');
const ViewImages = page('./routes/app/view-images.tsx', 'ViewImages');
const Messages = page('./routes/app/messages.tsx', 'Messages');
const AuditLogs = page('./routes/app/audit-logs.tsx', 'AuditLogs');
const RolesPermissions = page('./routes/app/roles-permissions.tsx', 'RolesPermissions');
const AppSettings = page('./routes/app/app-settings.tsx', 'AppSettings');
const AiAnalysis = page('./routes/app/ai-analysis.tsx', 'AiAnalysis');
const Study = page('./routes/app/study.tsx', 'Study');
// Cornerstone3D is large; this import keeps it out of every other page's download.
const DicomViewer = page('../features/dicom-viewer/dicom-viewer-route.tsx', 'DicomViewer');
const SeriesViewer = page('../features/dicom-viewer/series-viewer-route.tsx', 'SeriesViewer');

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
    const found = pageIn(route.element, signedIn);
    if (found === SIGN_IN_FIRST) break;
    const start = pageLoader(found);
    if (start) loading.push(start());
  }
  return settled(loading);
}

const SIGN_IN_FIRST = Symbol('sign in first');

/**
 * The lazily loaded page a route's element renders, looking through the wrappers around it
 * (`<SignedOutOnly><Login /></SignedOutOnly>`); `SIGN_IN_FIRST` at `RequireAuth` without a session.
 */
function pageIn(element: ReactNode, signedIn: boolean): unknown {
  while (isValidElement(element)) {
    if (element.type === RequireAuth && !signedIn) return SIGN_IN_FIRST;
    if (pageLoader(element.type)) return element.type;
    element = (element.props as { children?: ReactNode }).children;
  }
  return undefined;
}

/**
 * Every route's path pattern (React Router's: `:id`, `:id?`, `*`) with the source files of the lazily
 * loaded pages it renders, outermost first, as a signed-in visitor opens it. The build turns the
 * files into the chunks the server preloads with the HTML of that path (web/build/route-preloads.ts).
 */
export function routePageFiles(): { path: string; files: string[] }[] {
  const plan: { path: string; files: string[] }[] = [];
  const visit = (list: RouteObject[], base: string, files: string[]) => {
    for (const route of list) {
      const path = route.index || route.path === undefined ? base : joinPath(base, route.path);
      const file = pageFile(pageIn(route.element, true));
      const here = file ? [...files, file] : files;
      if (route.children) visit(route.children, path, here);
      else plan.push({ path, files: here });
    }
  };
  visit(routes, '', []);
  return plan;
}

const joinPath = (base: string, path: string) => (path.startsWith('/') ? path : `${base.replace(/\/$/, '')}/${path}`);

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

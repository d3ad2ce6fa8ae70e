import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { createBrowserRouter, Outlet, RouterProvider, type RouteObject } from 'react-router';
import { RouteFallback } from '../components/ui/route-fallback';
import { paths } from '../config/paths';
import { RequireAuth } from './require-auth';
import { RouteError } from './route-error';

// Every page is its own chunk: the first visit downloads only the page it opens.
const page = (load: () => Promise<{ default: ComponentType }>): LazyExoticComponent<ComponentType> => lazy(load);

const Landing = page(() => import('./routes/landing'));
const ShareImage = page(() => import('./routes/share-image'));
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
// Cornerstone3D is large; this import keeps it out of every other page's download.
const DicomViewer = page(() => import('../features/dicom-viewer/dicom-viewer-route'));

function RootLayout() {
  return (
    <Suspense fallback={<RouteFallback />}>
      <Outlet />
    </Suspense>
  );
}

/** Route paths relative to '/', taken from the one list in config/paths. */
const rel = (path: string) => path.replace(/^\//, '');

export const routes: RouteObject[] = [
  {
    path: paths.home,
    element: <RootLayout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <Landing /> },
      { path: rel(paths.shareImage), element: <ShareImage /> },
      { path: rel(paths.login), element: <Login /> },
      { path: rel(paths.register), element: <Register /> },
      { path: rel(paths.verifyAccount), element: <VerifyAccount /> },
      { path: rel(paths.forgotPassword), element: <ForgotPassword /> },
      { path: rel(paths.resetPassword), element: <ResetPassword /> },
      {
        element: <RequireAuth />,
        children: [
          {
            element: <AppLayout />,
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
            ],
          },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
];

const router = createBrowserRouter(routes);

export function AppRouter() {
  return <RouterProvider router={router} />;
}

import CloudUploadIcon from '@mui/icons-material/CloudUpload';
import DashboardIcon from '@mui/icons-material/Dashboard';
import ForumIcon from '@mui/icons-material/Forum';
import HomeIcon from '@mui/icons-material/Home';
import HistoryEduIcon from '@mui/icons-material/HistoryEdu';
import InsightsIcon from '@mui/icons-material/Insights';
import PersonIcon from '@mui/icons-material/Person';
import PhotoLibraryIcon from '@mui/icons-material/PhotoLibrary';
import SecurityIcon from '@mui/icons-material/Security';
import SettingsIcon from '@mui/icons-material/Settings';
import type { RoleName } from '@medshare/contracts';
import type { ReactNode } from 'react';
import { paths } from '../../config/paths';
import { canOpenPage } from './page-access';

export type NavItem = { label: string; to: string; icon: ReactNode };

/** 'mobile' is the temporary drawer below 1024 px, 'desktop' the permanent side menu. */
export type NavVariant = 'desktop' | 'mobile';

type NavRule = NavItem & { show: (role: RoleName | undefined, variant: NavVariant) => boolean };

const staff = (role: RoleName | undefined) => role === 'admin' || role === 'healthProvider';
// An item shows when its page is one the role may open (page-access.ts, the rule the router uses).
const openable = (to: string) => (role: RoleName | undefined) => canOpenPage(role, to);

// `docs/product.md` › Navigation; the server still checks permissions on every call.
const rules: NavRule[] = [
  {
    label: 'Dashboard',
    to: paths.dashboard,
    icon: <DashboardIcon />,
    show: (role, variant) => variant === 'mobile' || staff(role),
  },
  { label: 'Admin Dashboard', to: paths.adminDashboard, icon: <InsightsIcon />, show: openable(paths.adminDashboard) },
  { label: 'Profile', to: paths.profile, icon: <PersonIcon />, show: openable(paths.profile) },
  { label: 'Upload Image', to: paths.upload, icon: <CloudUploadIcon />, show: openable(paths.upload) },
  { label: 'View Images', to: paths.viewImages, icon: <PhotoLibraryIcon />, show: openable(paths.viewImages) },
  { label: 'Messages', to: paths.messages, icon: <ForumIcon />, show: openable(paths.messages) },
  { label: 'Audit Logs', to: paths.auditLogs, icon: <HistoryEduIcon />, show: openable(paths.auditLogs) },
  { label: 'Roles', to: paths.rolesPermissions, icon: <SecurityIcon />, show: openable(paths.rolesPermissions) },
  { label: 'Settings', to: paths.appSettings, icon: <SettingsIcon />, show: openable(paths.appSettings) },
  { label: 'Home', to: paths.home, icon: <HomeIcon />, show: () => true },
];

export function getNavItems(role: RoleName | undefined, variant: NavVariant): NavItem[] {
  return rules.filter((rule) => rule.show(role, variant)).map(({ label, to, icon }) => ({ label, to, icon }));
}

import type { PermissionName, RoleName } from '@medshare/contracts';
import { roleHasAny } from '@medshare/contracts/permissions';
import { paths } from '../../config/paths';

/**
 * The one rule for which signed-in pages a role may open: the permission the server checks on the
 * calls the page exists to make (any one suffices). Pages not listed are open to every signed-in
 * user; the server still decides what each of them shows: among them the DICOM viewer, and a study
 * and its series in the stack viewer (`paths.series`, page '/studies': DICOMweb answers only what
 * the caller may see).
 */
const pagePermissions: ReadonlyMap<string, readonly PermissionName[]> = new Map<string, readonly PermissionName[]>([
  [paths.adminDashboard, ['users:manage']],
  [paths.upload, ['image:upload']],
  [paths.messages, ['messages:send']],
  [paths.auditLogs, ['audit:read_all', 'audit:read_own']],
  [paths.rolesPermissions, ['roles:read']],
  [paths.appSettings, ['settings:manage']],
  [paths.aiAnalysis, ['analysis:run']],
]);

/** '/ai-analysis/123' → '/ai-analysis': a page is named by its first path segment. */
function pageOf(pathname: string): string {
  return `/${pathname.split('/').find(Boolean) ?? ''}`;
}

/** Whether a signed-in user of this role may use the page at `pathname`. */
export function canOpenPage(role: RoleName | undefined, pathname: string): boolean {
  const needs = pagePermissions.get(pageOf(pathname));
  return !needs || roleHasAny(role, needs);
}

/**
 * Where a signed-in user starts (`docs/product.md` › States and transitions): View Images for a patient, the
 * dashboard otherwise.
 */
export function startPageFor(role: RoleName | undefined): string {
  return role === 'patient' ? paths.viewImages : paths.dashboard;
}

/** The name of the start page, for links to it. */
export function startPageLabel(role: RoleName | undefined): string {
  return role === 'patient' ? 'View Images' : 'Dashboard';
}

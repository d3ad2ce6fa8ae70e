import type { RoleName } from './common.ts';
import type { PermissionName } from './roles.ts';

// No zod here: the web app's first chunk imports this, and building schemas there would run
// before the app turns zod's eval probe off (web/src/lib/zod-jitless.ts).

/**
 * What each role holds, as seeded into role_permissions, which the server checks on every request.
 * The web app reads it to offer a person only the pages their role can use.
 */
export const RolePermissions: Readonly<Record<RoleName, readonly PermissionName[]>> = {
  admin: [
    'image:upload',
    'image:share',
    'image:verify',
    'image:delete',
    'image:view_all',
    'analysis:run',
    'users:read',
    'users:manage',
    'audit:read_own',
    'audit:read_all',
    'settings:manage',
    'roles:read',
    'messages:send',
  ],
  healthProvider: [
    'image:upload',
    'image:share',
    'image:verify',
    'image:delete',
    'analysis:run',
    'users:read',
    'audit:read_own',
    'messages:send',
  ],
  patient: ['image:verify', 'messages:send'],
};

/** True when the role holds at least one of the permissions. */
export function roleHasAny(role: RoleName | undefined, permissions: readonly PermissionName[]): boolean {
  if (!role) return false;
  const held = RolePermissions[role];
  return permissions.some((permission) => held.includes(permission));
}

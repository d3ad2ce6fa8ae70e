import type { Permission, PermissionName, Role, RoleName } from '@medshare/contracts';
import { forbidden } from '../../errors.ts';
import type { Actor } from '../auth/actor.ts';
import type { RolesRepository } from './roles.repository.ts';

/** The Roles page: roles with what they hold, permissions with who holds them (roles:read). */
export function createRolesService({ repo }: { repo: RolesRepository }) {
  return {
    async listRoles(actor: Actor): Promise<Role[]> {
      if (!actor.permissions.has('roles:read')) throw forbidden();
      const [roles, grants] = await Promise.all([repo.listRoles(), repo.listGrants()]);
      return roles.map((r) => ({
        id: r.id,
        name: r.name as RoleName,
        description: r.description,
        permissions: grants.filter((g) => g.role === r.name).map((g) => g.permission as PermissionName),
      }));
    },

    async listPermissions(actor: Actor): Promise<Permission[]> {
      if (!actor.permissions.has('roles:read')) throw forbidden();
      const [permissions, grants] = await Promise.all([repo.listPermissions(), repo.listGrants()]);
      return permissions.map((p) => ({
        id: p.id,
        name: p.name as PermissionName,
        description: p.description,
        roles: grants.filter((g) => g.permission === p.name).map((g) => g.role as RoleName),
      }));
    },
  };
}
export type RolesService = ReturnType<typeof createRolesService>;

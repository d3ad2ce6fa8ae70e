import type { Db } from '../../db/db.ts';

export function createRolesRepository(db: Db) {
  return {
    listRoles: () => db.selectFrom('roles').select(['id', 'name', 'description']).orderBy('id').execute(),
    listPermissions: () => db.selectFrom('permissions').select(['id', 'name', 'description']).orderBy('name').execute(),
    /** Every (role, permission) pair by name. */
    listGrants: () =>
      db
        .selectFrom('role_permissions')
        .innerJoin('roles', 'roles.id', 'role_permissions.role_id')
        .innerJoin('permissions', 'permissions.id', 'role_permissions.permission_id')
        .select(['roles.name as role', 'permissions.name as permission'])
        .orderBy('permissions.name')
        .orderBy('roles.id')
        .execute(),
  };
}
export type RolesRepository = ReturnType<typeof createRolesRepository>;

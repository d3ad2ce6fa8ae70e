import { describe, expect, it } from 'vitest';
import { RolePermissions, roleHasAny } from './permissions.ts';
import { PermissionNames } from './roles.ts';

describe('RolePermissions', () => {
  it('gives an admin every permission there is', () => {
    expect([...RolePermissions.admin].sort()).toEqual([...PermissionNames].sort());
  });

  it('answers whether a role holds any of the permissions', () => {
    expect(roleHasAny('healthProvider', ['audit:read_all', 'audit:read_own'])).toBe(true);
    expect(roleHasAny('patient', ['image:upload'])).toBe(false);
    expect(roleHasAny(undefined, ['messages:send'])).toBe(false);
  });
});

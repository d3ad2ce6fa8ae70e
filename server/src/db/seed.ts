import { KnownSettings, type PermissionName, RolePermissions, type RoleName } from '@medshare/contracts';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { PasswordHasher } from '../crypto/passwords.ts';
import type { Db } from './db.ts';

const roleDescriptions: Record<RoleName, string> = {
  patient: 'Receives and views their own images; messages providers',
  healthProvider: 'Uploads, shares and analyses images for patients',
  admin: 'Manages users, roles, settings and reads the full audit trail',
};

const permissionDescriptions: Record<PermissionName, string> = {
  'image:upload': 'Upload images for patients',
  'image:share': 'Share own images with other users',
  'image:verify': 'Unlock shared images with a sharing id and code',
  'image:delete': 'Delete own uploaded images',
  'image:view_all': 'See every image and its content',
  'analysis:run': 'Run AI analysis on images one may see',
  'users:read': 'List and view users',
  'users:manage': 'Activate, deactivate and delete users',
  'audit:read_own': 'Read one’s own audit trail',
  'audit:read_all': 'Read the whole audit trail',
  'settings:manage': 'Create, edit and delete application settings',
  'roles:read': 'Read roles and permissions',
  'messages:send': 'Send direct messages',
};

// One table for the server's checks and the web app's page gates (contracts/src/permissions.ts).
export const rolePermissions = RolePermissions;

export interface SeedResult {
  /** Set only when this run created the first admin with a generated password. */
  generatedAdmin: { email: string; password: string } | null;
}

/** Idempotent: safe on every start and from several instances at once. */
export async function seed(
  db: Db,
  hasher: PasswordHasher,
  admin: { email: string | null; password: string | null },
): Promise<SeedResult> {
  await db
    .insertInto('roles')
    .values(Object.entries(roleDescriptions).map(([name, description]) => ({ name, description })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  await db
    .insertInto('permissions')
    .values(Object.entries(permissionDescriptions).map(([name, description]) => ({ name, description })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const roles = await db.selectFrom('roles').select(['id', 'name']).execute();
  const perms = await db.selectFrom('permissions').select(['id', 'name']).execute();
  const roleId = new Map(roles.map((r) => [r.name, r.id]));
  const permId = new Map(perms.map((p) => [p.name, p.id]));
  const links = Object.entries(rolePermissions).flatMap(([role, names]) =>
    names.map((name) => ({ role_id: roleId.get(role)!, permission_id: permId.get(name)! })),
  );
  await db
    .insertInto('role_permissions')
    .values(links)
    .onConflict((oc) => oc.columns(['role_id', 'permission_id']).doNothing())
    .execute();

  for (const [name, s] of Object.entries(KnownSettings)) {
    await db
      .insertInto('app_settings')
      .values({ name, value: s.default, description: s.description })
      .onConflict((oc) => oc.expression(sql`lower(name)`).doNothing())
      .execute();
  }

  const adminRoleId = roleId.get('admin')!;
  const existing = await db
    .selectFrom('users')
    .select('id')
    .where('role_id', '=', adminRoleId)
    .limit(1)
    .executeTakeFirst();
  if (existing) return { generatedAdmin: null };

  const email = (admin.email ?? 'admin@medshare.local').toLowerCase();
  const password = admin.password ?? randomBytes(12).toString('base64url');
  const inserted = await db
    .insertInto('users')
    .values({
      email,
      username: 'admin',
      password_hash: await hasher.hash(password),
      role_id: adminRoleId,
      active: true,
      email_verified_at: new Date(),
      approved_at: new Date(),
      firstname: 'System',
      lastname: 'Administrator',
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return { generatedAdmin: inserted && !admin.password ? { email, password } : null };
}

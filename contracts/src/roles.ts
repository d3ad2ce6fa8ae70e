import { z } from 'zod';
import { RoleNameSchema } from './common.ts';

/** Every permission the server checks. Routes check these, never role names. */
export const PermissionNames = [
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
] as const;
export const PermissionNameSchema = z.enum(PermissionNames);
export type PermissionName = z.infer<typeof PermissionNameSchema>;

export const RoleSchema = z.object({
  id: z.number().int(),
  name: RoleNameSchema,
  description: z.string(),
  permissions: z.array(PermissionNameSchema),
});
export type Role = z.infer<typeof RoleSchema>;

export const PermissionSchema = z.object({
  id: z.number().int(),
  name: PermissionNameSchema,
  description: z.string(),
  roles: z.array(RoleNameSchema),
});
export type Permission = z.infer<typeof PermissionSchema>;

export const RoleListSchema = z.array(RoleSchema);
export const PermissionListSchema = z.array(PermissionSchema);

import { z } from 'zod';
import { CalendarDateSchema, RoleNameSchema, optionalText, pageQuerySchema, uuid } from './common.ts';

export const GenderSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['male', 'female', 'other']));

/** A user as any endpoint returns it: never a hash, code or secret. */
export const UserSchema = z.object({
  id: uuid(),
  firstname: z.string(),
  lastname: z.string(),
  username: z.string(),
  email: z.string(),
  role: RoleNameSchema,
  active: z.boolean(),
  emailVerified: z.boolean(),
  phone: z.string().nullable(),
  dob: CalendarDateSchema.nullable(),
  gender: z.enum(['male', 'female', 'other']).nullable(),
  address: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  country: z.string().nullable(),
  zipcode: z.string().nullable(),
  bio: z.string().nullable(),
  taxid: z.string().nullable(),
  licensenumber: z.string().nullable(),
  insurancenumber: z.string().nullable(),
  specialization: z.string().nullable(),
  bloodgroup: z.string().nullable(),
  primphysician: z.string().nullable(),
  createdAt: z.string(),
});
export type User = z.infer<typeof UserSchema>;

/**
 * What an admin means by Activate, Approve or Deactivate: the state the account should be in. Sent by
 * the web app so that the request is safe to repeat (a double click, two admins at once); without a
 * body the route toggles from the state it reads.
 */
export const ToggleUserStatusBodySchema = z.strictObject({ active: z.boolean() });
export type ToggleUserStatusBody = z.infer<typeof ToggleUserStatusBodySchema>;

/** Profile fields a user may edit about themself (the 'Edit user' modal of `docs/product.md` › Profile). */
export const UpdateProfileBodySchema = z.strictObject({
  firstname: z.string().trim().min(1, 'First name is required').max(100).optional(),
  lastname: z.string().trim().min(1, 'Last name is required').max(100).optional(),
  phone: optionalText(40),
  // Not after today, checked by the service when it changes (the edit form sends every field back,
  // and a date stored before the rule existed must not block every other edit).
  dob: z.union([CalendarDateSchema, z.literal('')]).nullish(),
  gender: z.union([GenderSchema, z.literal('')]).nullish(),
  taxid: optionalText(100),
  city: optionalText(100),
  country: optionalText(100),
  state: optionalText(100),
  address: optionalText(300),
  zipcode: optionalText(20),
  bio: optionalText(2000),
  bloodgroup: optionalText(10),
  insurancenumber: optionalText(100),
  licensenumber: optionalText(100),
  specialization: optionalText(200),
  primphysician: optionalText(200),
});
export type UpdateProfileBody = z.infer<typeof UpdateProfileBodySchema>;

export const ListUsersQuerySchema = pageQuerySchema(5).extend({
  search: z.string().trim().max(100).optional(),
  role: RoleNameSchema.optional(),
  sort: z.enum(['name', 'email', 'role', 'createdAt']).default('createdAt'),
  order: z.enum(['asc', 'desc']).default('desc'),
});
export type ListUsersQuery = z.infer<typeof ListUsersQuerySchema>;

/*
 * Field-visibility policy (docs/decisions.md, "People and administration"):
 * - `UserSchema` (view 'full'): the user themself and admins (users:manage).
 * - `UserCareSchema` (view 'care'): a viewer with users:read (providers) looking at an active
 *   patient or provider — the contact and clinical fields needed for care. Never taxid; a
 *   provider's insurance number only for patients (billing of their care), never of other providers.
 * - `UserPublicSchema` (view 'public'): everyone else who may know the user exists (patients
 *   looking at active providers and admins, providers looking at admins).
 * Anyone else gets 404, as for an unknown id.
 */
export const UserPublicSchema = z.object({
  view: z.literal('public'),
  id: uuid(),
  firstname: z.string(),
  lastname: z.string(),
  role: RoleNameSchema,
  specialization: z.string().nullable(),
});
export type UserPublic = z.infer<typeof UserPublicSchema>;

export const UserCareSchema = z.object({
  view: z.literal('care'),
  id: uuid(),
  firstname: z.string(),
  lastname: z.string(),
  username: z.string(),
  email: z.string(),
  role: RoleNameSchema,
  phone: z.string().nullable(),
  dob: CalendarDateSchema.nullable(),
  gender: z.enum(['male', 'female', 'other']).nullable(),
  address: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  country: z.string().nullable(),
  zipcode: z.string().nullable(),
  bio: z.string().nullable(),
  licensenumber: z.string().nullable().describe('Providers only'),
  specialization: z.string().nullable().describe('Providers only'),
  insurancenumber: z.string().nullable().describe('Patients only; null for providers'),
  bloodgroup: z.string().nullable().describe('Patients only'),
  primphysician: z.string().nullable().describe('Patients only'),
  createdAt: z.string(),
});
export type UserCare = z.infer<typeof UserCareSchema>;

export const UserFullSchema = UserSchema.extend({ view: z.literal('full') });

/** GET /api/users/:id: the profile in the widest view the viewer may have; `view` says which. */
export const UserProfileViewSchema = z.discriminatedUnion('view', [UserFullSchema, UserCareSchema, UserPublicSchema]);
export type UserProfileView = z.infer<typeof UserProfileViewSchema>;

/** A row of the dashboard's users table as providers (users:read) see it. */
export const UserSummarySchema = z.object({
  id: uuid(),
  firstname: z.string(),
  lastname: z.string(),
  email: z.string(),
  role: RoleNameSchema,
  gender: z.enum(['male', 'female', 'other']).nullable(),
});
export type UserSummary = z.infer<typeof UserSummarySchema>;

/** A row of the users table as admins (users:manage) see it: with account state. */
export const AdminUserSummarySchema = UserSummarySchema.extend({
  username: z.string(),
  active: z.boolean(),
  pending: z.boolean().describe('A provider awaiting an admin’s approval'),
  createdAt: z.string(),
});
export type AdminUserSummary = z.infer<typeof AdminUserSummarySchema>;

/** Admin rows carry `active`/`pending`; provider rows do not. */
export const UserListItemSchema = z.union([AdminUserSummarySchema, UserSummarySchema]);
export type UserListItem = z.infer<typeof UserListItemSchema>;

export const ListUsersPagedQuerySchema = ListUsersQuerySchema.extend({
  pending: z.stringbool().optional().describe('Admins only: true lists providers awaiting approval'),
});
export type ListUsersPagedQuery = z.infer<typeof ListUsersPagedQuerySchema>;

export const USERS_PAGE_SIZES = [5, 10, 25] as const;

export const DeleteAccountBodySchema = z.strictObject({
  password: z.string().min(1, 'Password is required').max(128),
});
export type DeleteAccountBody = z.infer<typeof DeleteAccountBodySchema>;

export const DashboardStatsSchema = z.object({
  totalUsers: z.number().int().describe('Users the viewer may see'),
  totalImages: z.number().int(),
  sharedImages: z.number().int(),
  imageStatsAvailable: z.boolean().describe('False while the images module does not provide counts (then both are 0)'),
});
export type DashboardStats = z.infer<typeof DashboardStatsSchema>;

export const AdminSummarySchema = z.object({
  pendingProviders: z.object({
    count: z.number().int(),
    items: z.array(AdminUserSummarySchema).describe('The oldest pending providers first, at most 5'),
  }),
  usersByRole: z.object({ patient: z.number().int(), healthProvider: z.number().int(), admin: z.number().int() }),
  activeUsers: z.number().int(),
  uploadsPerDay: z
    .array(z.object({ date: CalendarDateSchema, count: z.number().int() }))
    .describe('The last 14 days, oldest first, in the display time zone'),
  uploadsAvailable: z
    .boolean()
    .describe('False while the images module does not provide upload counts (then every count is 0)'),
});
export type AdminSummary = z.infer<typeof AdminSummarySchema>;

export const UserMessages = {
  profileUpdated: 'Profile updated successfully!',
  accountDeleted: 'Your account has been deleted',
  userDeleted: 'User deleted',
  wrongPassword: 'The password is not correct',
  lastAdmin: 'The last active administrator cannot be removed',
} as const;

import type { AdminUserSummary, User, UserCare, UserPublic, UserSummary } from '@medshare/contracts';
import type { UserListRow, UserWithRole } from './users.repository.ts';

/** The one place a user row becomes an API object: no hash, code or lockout state leaves. */
export function presentUser(row: UserWithRole): User {
  return {
    id: row.id,
    firstname: row.firstname,
    lastname: row.lastname,
    username: row.username,
    email: row.email,
    role: row.role,
    active: row.active,
    emailVerified: row.email_verified_at !== null,
    phone: row.phone,
    dob: row.dob,
    gender: row.gender,
    address: row.address,
    city: row.city,
    state: row.state,
    country: row.country,
    zipcode: row.zipcode,
    bio: row.bio,
    taxid: row.taxid,
    licensenumber: row.licensenumber,
    insurancenumber: row.insurancenumber,
    specialization: row.specialization,
    bloodgroup: row.bloodgroup,
    primphysician: row.primphysician,
    createdAt: row.created_at.toISOString(),
  };
}

/** What a provider sees of a patient or provider (field policy in contracts/src/users.ts). */
export function presentCare(row: UserWithRole): UserCare {
  const isPatient = row.role === 'patient';
  const isProvider = row.role === 'healthProvider';
  return {
    view: 'care',
    id: row.id,
    firstname: row.firstname,
    lastname: row.lastname,
    username: row.username,
    email: row.email,
    role: row.role,
    phone: row.phone,
    dob: row.dob,
    gender: row.gender,
    address: row.address,
    city: row.city,
    state: row.state,
    country: row.country,
    zipcode: row.zipcode,
    bio: row.bio,
    licensenumber: isProvider ? row.licensenumber : null,
    specialization: isProvider ? row.specialization : null,
    insurancenumber: isPatient ? row.insurancenumber : null,
    bloodgroup: isPatient ? row.bloodgroup : null,
    primphysician: isPatient ? row.primphysician : null,
    createdAt: row.created_at.toISOString(),
  };
}

/** What anyone who may know the user exists sees. */
export function presentPublic(row: UserWithRole): UserPublic {
  return {
    view: 'public',
    id: row.id,
    firstname: row.firstname,
    lastname: row.lastname,
    role: row.role,
    specialization: row.role === 'healthProvider' ? row.specialization : null,
  };
}

export function presentSummary(row: UserListRow): UserSummary {
  return {
    id: row.id,
    firstname: row.firstname,
    lastname: row.lastname,
    email: row.email,
    role: row.role,
    gender: row.gender,
  };
}

export function presentAdminSummary(row: UserListRow): AdminUserSummary {
  return {
    ...presentSummary(row),
    username: row.username,
    active: row.active,
    pending: row.approved_at === null,
    createdAt: row.created_at.toISOString(),
  };
}

/** Empty form strings become null so that 'N/A' shows for them. */
export function blankToNull<T extends Record<string, unknown>>(input: T): { [K in keyof T]: Exclude<T[K], ''> | null } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) out[k] = v === '' || v === undefined ? null : v;
  return out as { [K in keyof T]: Exclude<T[K], ''> | null };
}

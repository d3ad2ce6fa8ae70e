import type { PermissionName, RoleName } from '@medshare/contracts';

/**
 * Who is calling: what every service receives instead of the HTTP request. Kept apart from
 * auth.service so that services needing only the type import no other service (no type cycles).
 */
export interface Actor {
  userId: string;
  sessionId: string;
  role: RoleName;
  permissions: ReadonlySet<PermissionName>;
  ip: string | null;
}

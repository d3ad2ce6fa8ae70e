import type { RoleName } from '@medshare/contracts';

const labels: Record<RoleName, string> = {
  patient: 'Patient',
  healthProvider: 'Health Provider',
  admin: 'Admin',
};

export function roleLabel(role: RoleName | undefined): string {
  return role ? labels[role] : '';
}

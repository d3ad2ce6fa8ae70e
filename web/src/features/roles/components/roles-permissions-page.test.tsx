import { ApiPaths, type Permission, type Role } from '@medshare/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { api, failure, ok } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
import { RolesPermissionsPage } from './roles-permissions-page';

const roles: Role[] = [
  { id: 1, name: 'patient', description: 'Receives images', permissions: ['image:verify', 'messages:send'] },
  { id: 2, name: 'healthProvider', description: 'Uploads and shares', permissions: ['image:upload', 'messages:send'] },
  {
    id: 3,
    name: 'admin',
    description: 'Runs the installation',
    permissions: ['image:upload', 'image:verify', 'messages:send', 'roles:read'],
  },
];
const permissions: Permission[] = [
  { id: 1, name: 'image:upload', description: 'Upload images', roles: ['healthProvider', 'admin'] },
  { id: 2, name: 'image:verify', description: 'Verify a share', roles: ['patient', 'admin'] },
  { id: 3, name: 'messages:send', description: 'Send messages', roles: ['patient', 'healthProvider', 'admin'] },
  { id: 4, name: 'roles:read', description: 'Read roles', roles: ['admin'] },
];

function stubRoles(status = 200) {
  const refuse = () => failure(status, 'You are not allowed to do this');
  server.use(
    api.get<Role[]>(ApiPaths.roles, () => (status === 200 ? ok(roles) : refuse())),
    api.get<Permission[]>(ApiPaths.permissions, () => (status === 200 ? ok(permissions) : refuse())),
  );
}

/** The matrix cell at a permission's row and a role's column. */
function cell(permission: string, role: string): HTMLElement {
  const table = screen.getByRole('table');
  const headers = within(table)
    .getAllByRole('columnheader')
    .map((h) => h.textContent);
  const row = within(table)
    .getByRole('rowheader', { name: new RegExp(permission) })
    .closest('tr')!;
  return within(row).getAllByRole('cell')[headers.indexOf(role) - 1]!;
}

describe('RolesPermissionsPage', () => {
  it('lists the roles and the permissions by name', async () => {
    stubRoles();
    renderWithProviders(<RolesPermissionsPage />);
    const rolesList = within(await screen.findByRole('region', { name: 'Roles' })).getByRole('list');
    expect(
      within(rolesList)
        .getAllByRole('heading')
        .map((h) => h.textContent),
    ).toEqual(['Patient', 'Health Provider', 'Admin']);
    for (const p of permissions)
      expect(screen.getByRole('rowheader', { name: new RegExp(p.name) })).toBeInTheDocument();
  });

  it('marks a held permission with a check whose text says "Held", and one not held as "Not held"', async () => {
    stubRoles();
    renderWithProviders(<RolesPermissionsPage />);
    await screen.findByRole('table');
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Permission',
      'Patient',
      'Health Provider',
      'Admin',
    ]);
    expect(cell('roles:read', 'Admin')).toHaveTextContent('Held');
    expect(cell('roles:read', 'Admin').querySelector('[data-testid="CheckCircleIcon"]')).not.toBeNull();
    expect(cell('roles:read', 'Patient')).toHaveTextContent('Not held');
    expect(cell('image:upload', 'Health Provider')).toHaveTextContent('Held');
  });

  it('says so when the caller may not read roles', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    stubRoles(403);
    renderWithProviders(<RolesPermissionsPage />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Only administrators can see roles and permissions.');
  });
});

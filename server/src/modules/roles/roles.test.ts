import { PermissionNames } from '@medshare/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, loginAdmin, newUser } from '../../../test/harness.ts';

let t: TestApp;
let admin: SignedIn;
let provider: SignedIn;
let patient: SignedIn;

beforeAll(async () => {
  t = await createTestApp();
  admin = await loginAdmin(t);
  provider = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient');
});
afterAll(async () => t?.close());

const get = (url: string, token?: string) => t.request({ method: 'GET', url, token });

describe('GET /api/roles', () => {
  it('lists the three roles with the permissions each holds (admin: all of them)', async () => {
    const res = await get('/api/roles', admin.token);
    expect(res.statusCode).toBe(200);
    const roles = res.json().data as Array<{ name: string; permissions: string[]; description: string }>;
    expect(roles.map((r) => r.name).sort()).toEqual(['admin', 'healthProvider', 'patient']);
    expect(roles.find((r) => r.name === 'admin')!.permissions.sort()).toEqual([...PermissionNames].sort());
    expect(roles.find((r) => r.name === 'patient')!.permissions.sort()).toEqual(['image:verify', 'messages:send']);
    const providerPerms = roles.find((r) => r.name === 'healthProvider')!.permissions;
    expect(providerPerms).toContain('users:read');
    expect(providerPerms).not.toContain('users:manage');
  });

  it('refuses patients and providers (no roles:read) with 403 and anonymous callers with 401', async () => {
    expect((await get('/api/roles', patient.token)).statusCode).toBe(403);
    expect((await get('/api/roles', provider.token)).statusCode).toBe(403);
    expect((await get('/api/roles')).statusCode).toBe(401);
  });
});

describe('GET /api/roles/permissions', () => {
  it('lists every permission with the roles holding it', async () => {
    const res = await get('/api/roles/permissions', admin.token);
    expect(res.statusCode).toBe(200);
    const perms = res.json().data as Array<{ name: string; roles: string[] }>;
    expect(perms.map((p) => p.name).sort()).toEqual([...PermissionNames].sort());
    expect(perms.find((p) => p.name === 'messages:send')!.roles.sort()).toEqual(['admin', 'healthProvider', 'patient']);
    expect(perms.find((p) => p.name === 'settings:manage')!.roles).toEqual(['admin']);
  });

  it('refuses patients and providers with 403 and anonymous callers with 401', async () => {
    expect((await get('/api/roles/permissions', patient.token)).statusCode).toBe(403);
    expect((await get('/api/roles/permissions', provider.token)).statusCode).toBe(403);
    expect((await get('/api/roles/permissions')).statusCode).toBe(401);
  });
});

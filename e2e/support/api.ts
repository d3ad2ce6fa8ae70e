import { E2E } from './env.ts';
import { mailCount, waitForCode } from './mail.ts';

/** Seeding through the public API, as a client would. */
async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; json: T }> {
  const res = await fetch(`${E2E.baseUrl}/api${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json()) as T };
}

let n = 0;
// Playwright restarts its worker after a failure, which restarts n: the run id keeps names unique.
const run = Date.now().toString(36).slice(-4);
export function uniqueUser(role: 'patient' | 'healthProvider') {
  n += 1;
  const username = `${role === 'patient' ? 'pat' : 'doc'}${Date.now().toString(36)}${n}`;
  return {
    role,
    username,
    email: `${username}@example.org`,
    password: 'E2e-strong-passphrase',
    firstname: role === 'patient' ? 'Amina' : 'Bilal',
    lastname: `Khan${run}${n}`,
  };
}

export async function signInViaApi(
  email: string,
  password: string,
): Promise<{ token: string; user: { id: string; role: string } }> {
  const before = mailCount(email);
  const login = await call('POST', '/auth/login', { email, password });
  if (login.status !== 200) throw new Error(`login ${email}: ${login.status} ${JSON.stringify(login.json)}`);
  const code = await waitForCode(email, before);
  const confirm = await call<{ data: { token: string; user: { id: string; role: string } } }>('POST', '/auth/confirm', {
    email,
    code,
  });
  if (confirm.status !== 200) throw new Error(`confirm: ${JSON.stringify(confirm.json)}`);
  return confirm.json.data;
}

export async function registerViaApi(u: ReturnType<typeof uniqueUser>): Promise<string> {
  const res = await call<{ data: { user: { id: string } } }>('POST', '/auth/register', u);
  if (res.status !== 201) throw new Error(`register: ${JSON.stringify(res.json)}`);
  const code = await waitForCode(u.email);
  await call('POST', '/auth/confirm', { email: u.email, code });
  return res.json.data.user.id;
}

export async function approveViaApi(userId: string): Promise<void> {
  const admin = await signInViaApi(E2E.admin.email, E2E.admin.password);
  const res = await call('PUT', `/users/toggleUserStatus/${userId}`, undefined, admin.token);
  if (res.status !== 200) throw new Error(`approve: ${JSON.stringify(res.json)}`);
}

/** Uploads one file as `token`'s user (`POST /api/upload/image`); the new image's id. */
export async function uploadFileViaApi(
  token: string,
  file: { caption: string; name: string; type: string; data: Uint8Array; patientId?: string },
): Promise<string> {
  const form = new FormData();
  form.set('caption', file.caption);
  form.set('file', new Blob([new Uint8Array(file.data)], { type: file.type }), file.name);
  if (file.patientId) form.set('patientId', file.patientId);
  const res = await fetch(`${E2E.baseUrl}/api/upload/image`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const json = (await res.json()) as { data?: { id: string } };
  if (res.status !== 201 || !json.data) throw new Error(`upload ${file.name}: ${res.status} ${JSON.stringify(json)}`);
  return json.data.id;
}

/** Shares an image by link as `token`'s user (`POST /api/external-shares`); the code shown once. */
export async function shareByLinkViaApi(token: string, imageId: string, recipientEmail: string): Promise<string> {
  const res = await call<{ data: { code: string } }>('POST', '/external-shares', { imageId, recipientEmail }, token);
  if (res.status !== 201) throw new Error(`share by link: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json.data.code;
}

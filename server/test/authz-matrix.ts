import type { SignedIn } from './harness.ts';

/**
 * The authorization matrix: for every route of the OpenAPI document, the status each identity
 * gets (`docs/architecture.md` › Roles and permissions; the object rules of its sections Images to
 * Settings; "404 also for a resource the caller may not know exists" of `docs/architecture.md` ›
 * API conventions). Objects of the fixtures belong to the "A" side: patient A is the assigned,
 * verified patient of provider A's uploads, so "own vs other's object" is patient A vs patient B
 * and provider A vs provider B for the same request.
 */
export const IDENTITIES = [
  'anonymous',
  'patientA',
  'patientB',
  'providerA',
  'providerB',
  'pending',
  'deactivated',
  // Someone without an account who holds an external share's link and entered its code: its only
  // credential is the link cookie (`docs/security.md` › Sharing with someone without an account).
  'linkHolder',
  // Last, so that a cell in which the admin deletes or toggles a shared fixture runs after the others.
  'admin',
] as const;
export type Identity = (typeof IDENTITIES)[number];
export type Role = 'patient' | 'healthProvider';

export interface Fixtures {
  who: Record<Exclude<Identity, 'anonymous' | 'linkHolder'>, SignedIn>;
  /** Provider A's JPEG (no patient) shared by link; the link holder's cookie after the code. */
  link: { imageId: string; shareId: string; token: string; cookie: string };
  /** A fresh link to provider A's image of `link`: the share's id, the link's token and the code. */
  freshLink(): Promise<{ shareId: string; token: string; code: string }>;
  /** JPEG uploaded by provider A for patient A, verified by patient A; thumbnail ready; analysed. */
  imageA: string;
  /** DICOM uploaded by provider A for patient A, verified by patient A. */
  dicomA: { id: string; study: string; series: string; sop: string };
  /** Provider A's images shared with provider B: verified by B, and not yet verified. */
  sharedWithB: { verified: string; unverified: string };
  /** Patient A's automatic share of imageA and its mailed code. */
  shareA: { id: string; code: string };
  /** A user anyone can sign in as (login cell). */
  loginTarget: { email: string; password: string };
  /** Plain text of the message patient A sent to provider A. */
  messageText: string;
  settingEditable: string;
  settingDeletable: string;
  victimToggle: string;
  victimDelete: string;
  /** Per-cell objects, for cells that change or destroy what they touch. */
  freshImage(): Promise<string>;
  /** A share of a fresh image of provider A with patient B. */
  freshShare(): Promise<string>;
  /** A fresh image of provider A's, shared with provider B (not verified). */
  freshImageSharedWithB(): Promise<string>;
  /** The Study Instance UID of a fresh one-instance DICOM study of provider A's (no patient). */
  freshStudy(): Promise<string>;
  /** A fresh study of provider A's shared whole with patient B: its UID, the sharing id and the mailed code. */
  freshStudyShare(): Promise<{ study: string; id: string; code: string }>;
  freshUser(role: Role): Promise<SignedIn>;
  /** A new session for the identity (logout ends the one it is called with). */
  freshToken(who: Identity): Promise<string | undefined>;
  uploadBody(): Promise<{ payload: Buffer; headers: Record<string, string> }>;
  /** A STOW-RS body (multipart/related) of a fresh one-instance study: its UID and the body. */
  stowBody(): { study: string; payload: Buffer; headers: Record<string, string> };
  unique(prefix: string): string;
}

export interface CellRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'OPTIONS';
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
  /** Replaces the identity's token (undefined: no Authorization header). */
  token?: string | undefined;
  /** Server-Sent Events: only the status line is read, over a real socket. */
  stream?: boolean;
}

export interface MatrixRow {
  /** `METHOD /path` exactly as in the OpenAPI document. */
  route: string;
  /** Which object or variant the row exercises. */
  variant: string;
  request(f: Fixtures, who: Identity): CellRequest | Promise<CellRequest>;
  expect: Record<Identity, number>;
  /** Further checks on a cell's answer (e.g. an audit trail holds only one's own rows). */
  check?(body: string, f: Fixtures, who: Identity): void;
  /** The answer may name A's objects whoever asks (the caller's own audit trail names what they tried). */
  mayNameObjects?: boolean;
}

type Active = 'patientA' | 'patientB' | 'providerA' | 'providerB' | 'admin';
/** Same status for everyone, token or not (public routes). */
const all = (s: number): Record<Identity, number> =>
  Object.fromEntries(IDENTITIES.map((i) => [i, s])) as Record<Identity, number>;
/** Signed-in routes: no token, a pending provider's token and a deactivated user's token are 401. */
const signedIn = (active: Record<Active, number>): Record<Identity, number> => ({
  anonymous: 401,
  pending: 401,
  deactivated: 401,
  linkHolder: 401,
  ...active,
});
const everyone = (s: number) => signedIn({ patientA: s, patientB: s, providerA: s, providerB: s, admin: s });
const adminOnly = (s: number) => signedIn({ patientA: 403, patientB: 403, providerA: 403, providerB: 403, admin: s });
const providersAndAdmin = (s: number) =>
  signedIn({ patientA: 403, patientB: 403, providerA: s, providerB: s, admin: s });
/** A's object: patient A (verified) and provider A (uploader) and the admin see it; B gets 404. */
const ownersOfA = (s: number) => signedIn({ patientA: s, patientB: 404, providerA: s, providerB: 404, admin: s });
/** Needs analysis:run (providers, admin), then sight of the content. */
const analysisOfA = (s: number) => signedIn({ patientA: 403, patientB: 403, providerA: s, providerB: 404, admin: s });

const get = (url: string): CellRequest => ({ method: 'GET', url });
const qidoLevels = ['studies', 'series', 'instances'] as const;
const tokenOf = (f: Fixtures, who: Identity) =>
  who === 'anonymous' || who === 'linkHolder' ? undefined : f.who[who].token;
const selfId = (f: Fixtures, who: Identity) =>
  (who === 'anonymous' || who === 'linkHolder' ? f.who.patientA : f.who[who]).user.id;
/** Only the link holder reaches its share; everyone else has no link credential. */
const linkHolderOnly = (s: number): Record<Identity, number> => ({ ...all(401), linkHolder: s });

export const MATRIX: MatrixRow[] = [
  // Health and public settings: no identity needed, a bad or dead token does not matter.
  { route: 'GET /api/health', variant: 'process up', request: () => get('/api/health'), expect: all(200) },
  { route: 'GET /api/ready', variant: 'dependencies', request: () => get('/api/ready'), expect: all(200) },
  {
    route: 'GET /api/appsetting/public',
    variant: 'locale and time zone',
    request: () => get('/api/appsetting/public'),
    expect: all(200),
  },

  // Sign-up and sign-in are public and answer the same with or without a token.
  {
    route: 'POST /api/auth/register',
    variant: 'a new patient',
    request: (f) => {
      const username = f.unique('reg');
      return {
        method: 'POST',
        url: '/api/auth/register',
        payload: {
          role: 'patient',
          email: `${username}@example.org`,
          username,
          password: 'Tr0ubadour-and-horse',
          firstname: 'New',
          lastname: username,
        },
      };
    },
    expect: all(201),
  },
  {
    route: 'POST /api/auth/login',
    variant: 'right password',
    request: (f) => ({ method: 'POST', url: '/api/auth/login', payload: f.loginTarget }),
    expect: all(200),
  },
  {
    route: 'POST /api/auth/confirm',
    variant: 'unknown e-mail',
    request: () => ({
      method: 'POST',
      url: '/api/auth/confirm',
      payload: { email: 'nobody@example.org', code: '123456' },
    }),
    expect: all(400),
  },
  {
    route: 'POST /api/auth/resend-code',
    variant: 'unknown e-mail',
    request: () => ({ method: 'POST', url: '/api/auth/resend-code', payload: { email: 'nobody@example.org' } }),
    expect: all(200),
  },
  {
    route: 'POST /api/auth/forgot-password',
    variant: 'unknown e-mail',
    request: () => ({ method: 'POST', url: '/api/auth/forgot-password', payload: { email: 'nobody@example.org' } }),
    expect: all(200),
  },
  {
    route: 'POST /api/auth/reset-password',
    variant: 'unknown link token',
    request: () => ({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: 'x'.repeat(43), password: 'Another-long-passphrase-9' },
    }),
    expect: all(400),
  },
  {
    route: 'POST /api/auth/logout',
    variant: 'a fresh session of the caller',
    request: async (f, who) => ({ method: 'POST', url: '/api/auth/logout', token: await f.freshToken(who) }),
    expect: everyone(200),
  },
  {
    route: 'GET /api/auth/session',
    variant: "the caller's own session",
    request: () => get('/api/auth/session'),
    expect: everyone(200),
  },

  // One's own account: no id in the path, so nobody can aim these at someone else.
  { route: 'GET /api/users/profile', variant: 'own', request: () => get('/api/users/profile'), expect: everyone(200) },
  {
    route: 'PUT /api/users/profile',
    variant: 'own',
    request: () => ({ method: 'PUT', url: '/api/users/profile', payload: { city: 'Lahore' } }),
    expect: everyone(200),
  },
  {
    route: 'PUT /api/users/profile',
    variant: 'own, smuggling role, active and id',
    request: (f) => ({
      method: 'PUT',
      url: '/api/users/profile',
      payload: { city: 'Lahore', role: 'admin', active: true, id: f.who.patientA.user.id },
    }),
    expect: everyone(400),
  },
  {
    route: 'DELETE /api/users/profile',
    variant: 'own account, right password (a throwaway user of the same role)',
    request: async (f, who) => {
      if (who === 'anonymous' || who === 'pending' || who === 'deactivated' || who === 'linkHolder')
        return { method: 'DELETE', url: '/api/users/profile', payload: { password: 'Tr0ubadour-and-horse' } };
      // The only admin may not delete itself (409); everyone else deletes a throwaway twin.
      const user =
        who === 'admin' ? f.who.admin : await f.freshUser(who.startsWith('patient') ? 'patient' : 'healthProvider');
      return { method: 'DELETE', url: '/api/users/profile', payload: { password: user.password }, token: user.token };
    },
    expect: signedIn({ patientA: 200, patientB: 200, providerA: 200, providerB: 200, admin: 409 }),
  },
  { route: 'GET /api/users/stats', variant: 'own view', request: () => get('/api/users/stats'), expect: everyone(200) },

  // The user directory (users:read) and administration (users:manage).
  { route: 'GET /api/users/', variant: 'directory', request: () => get('/api/users/'), expect: providersAndAdmin(200) },
  {
    route: 'GET /api/users/{id}',
    variant: "patient A's profile",
    request: (f) => get(`/api/users/${f.who.patientA.user.id}`),
    // Patients see only the care team. Any provider gets the care view of any patient (users:read):
    // docs/decisions.md accepts this until the data model records care teams.
    expect: signedIn({ patientA: 200, patientB: 404, providerA: 200, providerB: 200, admin: 200 }),
    check(body, _f, who) {
      if (who !== 'providerA' && who !== 'providerB') return;
      const data = (JSON.parse(body) as { data: Record<string, unknown> }).data;
      if (data.view !== 'care' || 'taxid' in data || 'active' in data || 'emailVerified' in data)
        throw new Error(`${who} must get the care view without tax id or account state`);
    },
  },
  {
    route: 'GET /api/users/{id}',
    variant: "provider A's profile",
    request: (f) => get(`/api/users/${f.who.providerA.user.id}`),
    expect: everyone(200),
  },
  {
    route: 'GET /api/users/{id}',
    variant: "the pending provider's profile",
    request: (f) => get(`/api/users/${f.who.pending.user.id}`),
    expect: signedIn({ patientA: 404, patientB: 404, providerA: 404, providerB: 404, admin: 200 }),
  },
  {
    route: 'GET /api/users/{id}',
    variant: "the deactivated user's profile",
    request: (f) => get(`/api/users/${f.who.deactivated.user.id}`),
    expect: signedIn({ patientA: 404, patientB: 404, providerA: 404, providerB: 404, admin: 200 }),
  },
  {
    route: 'DELETE /api/users/{id}',
    variant: 'another patient',
    request: (f) => ({ method: 'DELETE', url: `/api/users/${f.victimDelete}` }),
    expect: adminOnly(200),
  },
  {
    route: 'DELETE /api/users/{id}',
    variant: "the caller's own id",
    request: (f, who) => ({ method: 'DELETE', url: `/api/users/${selfId(f, who)}` }),
    // The admin deletes its own account from the profile (password), not from here.
    expect: adminOnly(409),
  },
  {
    route: 'PUT /api/users/toggleUserStatus/{id}',
    variant: "the caller's own id (the admin is active: this would deactivate it)",
    request: (f, who) => ({ method: 'PUT', url: `/api/users/toggleUserStatus/${selfId(f, who)}` }),
    expect: adminOnly(409),
  },
  {
    route: 'PUT /api/users/toggleUserStatus/{id}',
    variant: 'another patient',
    request: (f) => ({ method: 'PUT', url: `/api/users/toggleUserStatus/${f.victimToggle}` }),
    expect: adminOnly(200),
  },
  {
    route: 'GET /api/admin/summary',
    variant: 'dashboard',
    request: () => get('/api/admin/summary'),
    expect: adminOnly(200),
  },
  { route: 'GET /api/roles/', variant: 'roles', request: () => get('/api/roles/'), expect: adminOnly(200) },
  {
    route: 'GET /api/roles/permissions',
    variant: 'permissions',
    request: () => get('/api/roles/permissions'),
    expect: adminOnly(200),
  },

  // Settings (settings:manage).
  {
    route: 'GET /api/appsetting/',
    variant: 'all rows',
    request: () => get('/api/appsetting/'),
    expect: adminOnly(200),
  },
  {
    route: 'POST /api/appsetting/add',
    variant: 'a new row',
    request: (f) => ({
      method: 'POST',
      url: '/api/appsetting/add',
      payload: { setting: { name: f.unique('setting_'), value: '1', description: null } },
    }),
    expect: adminOnly(201),
  },
  {
    route: 'PUT /api/appsetting/edit/{id}',
    variant: 'an existing row',
    request: (f) => ({
      method: 'PUT',
      url: `/api/appsetting/edit/${f.settingEditable}`,
      payload: { name: 'authz_editable', value: '2' },
    }),
    expect: adminOnly(200),
  },
  {
    route: 'DELETE /api/appsetting/delete',
    variant: 'an existing row',
    request: (f) => ({ method: 'DELETE', url: '/api/appsetting/delete', payload: { id: f.settingDeletable } }),
    expect: adminOnly(200),
  },

  // Audit trail: all for the admin, one's own for providers, nothing for patients.
  {
    route: 'GET /api/audit/logs',
    variant: 'trail',
    request: () => get('/api/audit/logs?limit=100'),
    expect: providersAndAdmin(200),
    mayNameObjects: true,
    check(body, f, who) {
      if (who !== 'providerA' && who !== 'providerB') return;
      const rows = (JSON.parse(body) as { data: Array<{ user: { id: string } | null }> }).data;
      if (!rows.length || rows.some((r) => r.user?.id !== f.who[who].user.id))
        throw new Error(`${who} must read exactly their own audit rows`);
    },
  },
  {
    route: 'GET /api/audit/actions',
    variant: 'action names',
    request: () => get('/api/audit/actions'),
    expect: providersAndAdmin(200),
  },

  // Messages (messages:send): a thread is always the caller's own with the user in the path.
  {
    route: 'GET /api/message/chat-list',
    variant: 'own chats',
    request: () => get('/api/message/chat-list'),
    expect: everyone(200),
  },
  {
    route: 'GET /api/message/users',
    variant: 'who one may write to',
    request: () => get('/api/message/users'),
    expect: everyone(200),
  },
  {
    route: 'GET /api/message/chat/{userId}',
    variant: 'with provider A (A↔provider A has a message)',
    request: (f) => get(`/api/message/chat/${f.who.providerA.user.id}`),
    expect: signedIn({ patientA: 200, patientB: 200, providerA: 404, providerB: 200, admin: 200 }),
  },
  {
    route: 'GET /api/message/chat/{userId}',
    variant: 'with patient A',
    request: (f) => get(`/api/message/chat/${f.who.patientA.user.id}`),
    // Patients may not write to patients, so patient B has no chat with patient A to open.
    expect: signedIn({ patientA: 404, patientB: 404, providerA: 200, providerB: 200, admin: 200 }),
  },
  {
    route: 'POST /api/message/chat/{userId}/read',
    variant: 'with provider A',
    request: (f) => ({ method: 'POST', url: `/api/message/chat/${f.who.providerA.user.id}/read` }),
    expect: signedIn({ patientA: 200, patientB: 200, providerA: 404, providerB: 200, admin: 200 }),
  },
  {
    route: 'POST /api/message/chat/{userId}/read',
    variant: 'with patient A',
    request: (f) => ({ method: 'POST', url: `/api/message/chat/${f.who.patientA.user.id}/read` }),
    expect: signedIn({ patientA: 404, patientB: 404, providerA: 200, providerB: 200, admin: 200 }),
  },
  {
    route: 'POST /api/message/send',
    variant: 'to provider A',
    request: (f) => ({
      method: 'POST',
      url: '/api/message/send',
      payload: { recipientId: f.who.providerA.user.id, content: 'matrix hello' },
    }),
    expect: signedIn({ patientA: 201, patientB: 201, providerA: 400, providerB: 201, admin: 201 }),
  },
  {
    route: 'POST /api/message/send',
    variant: 'to patient A',
    request: (f) => ({
      method: 'POST',
      url: '/api/message/send',
      payload: { recipientId: f.who.patientA.user.id, content: 'matrix hello' },
    }),
    expect: signedIn({ patientA: 400, patientB: 404, providerA: 201, providerB: 201, admin: 201 }),
  },
  {
    route: 'GET /api/message/stream',
    variant: 'own live events',
    request: () => ({ method: 'GET', url: '/api/message/stream', stream: true }),
    expect: everyone(200),
  },

  // Images.
  {
    route: 'POST /api/upload/image',
    variant: 'a PDF, no patient',
    request: async (f) => ({ method: 'POST', url: '/api/upload/image', ...(await f.uploadBody()) }),
    expect: providersAndAdmin(201),
  },
  {
    route: 'GET /api/upload/my-images',
    variant: 'own list',
    request: () => get('/api/upload/my-images?limit=100'),
    expect: everyone(200),
  },
  {
    route: 'GET /api/upload/shared-images',
    variant: 'own list',
    request: () => get('/api/upload/shared-images?limit=100'),
    expect: everyone(200),
  },
  {
    route: 'GET /api/upload/images',
    variant: 'every image',
    request: () => get('/api/upload/images?limit=100'),
    expect: adminOnly(200),
  },
  {
    route: 'DELETE /api/upload/image/{id}',
    variant: 'a fresh image shared with provider B',
    request: async (f) => ({ method: 'DELETE', url: `/api/upload/image/${await f.freshImageSharedWithB()}` }),
    // Provider B sees it through the share but may not delete it.
    expect: signedIn({ patientA: 403, patientB: 403, providerA: 200, providerB: 403, admin: 200 }),
  },
  {
    route: 'DELETE /api/upload/image/{id}',
    variant: "a fresh image of provider A's",
    request: async (f) => ({ method: 'DELETE', url: `/api/upload/image/${await f.freshImage()}` }),
    // Patients lack image:delete (403); provider B may not know the image exists (404).
    expect: signedIn({ patientA: 403, patientB: 403, providerA: 200, providerB: 404, admin: 200 }),
  },
  {
    route: 'GET /api/images/{id}/content',
    variant: 'image A',
    request: (f) => get(`/api/images/${f.imageA}/content`),
    expect: ownersOfA(200),
  },
  {
    route: 'GET /api/images/{id}/content',
    variant: 'image A, as a download',
    request: (f) => get(`/api/images/${f.imageA}/content?download=1`),
    expect: ownersOfA(200),
  },
  {
    route: 'GET /api/images/{id}/content',
    variant: 'shared with provider B, verified',
    request: (f) => get(`/api/images/${f.sharedWithB.verified}/content`),
    expect: signedIn({ patientA: 404, patientB: 404, providerA: 200, providerB: 200, admin: 200 }),
  },
  {
    route: 'GET /api/images/{id}/content',
    variant: 'shared with provider B, not yet verified',
    request: (f) => get(`/api/images/${f.sharedWithB.unverified}/content`),
    expect: signedIn({ patientA: 404, patientB: 404, providerA: 200, providerB: 404, admin: 200 }),
  },
  {
    route: 'GET /api/images/{id}/thumbnail',
    variant: 'image A',
    request: (f) => get(`/api/images/${f.imageA}/thumbnail`),
    expect: ownersOfA(200),
  },

  // Sharing.
  {
    route: 'POST /api/sharing/request',
    variant: "a fresh image of provider A's, to patient B",
    request: async (f) => ({
      method: 'POST',
      url: '/api/sharing/request',
      payload: { imagemetadataId: await f.freshImage(), createdfor: f.who.patientB.user.id },
    }),
    expect: signedIn({ patientA: 403, patientB: 403, providerA: 201, providerB: 404, admin: 201 }),
  },
  {
    route: 'POST /api/sharing/request',
    variant: 'a fresh image shared with provider B, re-shared to patient B',
    request: async (f) => ({
      method: 'POST',
      url: '/api/sharing/request',
      payload: { imagemetadataId: await f.freshImageSharedWithB(), createdfor: f.who.patientB.user.id },
    }),
    // A recipient may not pass the image on.
    expect: signedIn({ patientA: 403, patientB: 403, providerA: 201, providerB: 403, admin: 201 }),
  },
  {
    route: 'POST /api/sharing/verify',
    variant: "patient A's share with its right code",
    request: (f) => ({
      method: 'POST',
      url: '/api/sharing/verify',
      payload: { sharingRequestId: f.shareA.id, verificationCode: f.shareA.code },
    }),
    // Only the recipient; even the sender and the admin holding the right code get 404.
    expect: signedIn({ patientA: 200, patientB: 404, providerA: 404, providerB: 404, admin: 404 }),
  },
  {
    route: 'GET /api/sharing/image/{id}',
    variant: 'shares of image A',
    request: (f) => get(`/api/sharing/image/${f.imageA}`),
    // Patient A sees the image through a share but may not manage it: 403, not 404.
    expect: signedIn({ patientA: 403, patientB: 404, providerA: 200, providerB: 404, admin: 200 }),
  },
  {
    route: 'GET /api/sharing/image/{id}',
    variant: 'shares of an image shared with provider B',
    request: (f) => get(`/api/sharing/image/${f.sharedWithB.verified}`),
    expect: signedIn({ patientA: 404, patientB: 404, providerA: 200, providerB: 403, admin: 200 }),
  },
  {
    route: 'DELETE /api/sharing/{id}',
    variant: "a fresh share of provider A's with patient B",
    request: async (f) => ({ method: 'DELETE', url: `/api/sharing/${await f.freshShare()}` }),
    // The recipient knows the share (403); everyone else but the sender and admin gets 404.
    expect: signedIn({ patientA: 404, patientB: 403, providerA: 200, providerB: 404, admin: 200 }),
  },

  // Studies: lists answer 200 with only what the caller may see; a study page needs sight of the content.
  {
    route: 'GET /api/studies/',
    variant: 'my studies',
    request: () => get('/api/studies/?limit=100'),
    expect: everyone(200),
  },
  {
    route: 'GET /api/studies/{studyUid}',
    variant: "DICOM A's study",
    request: (f) => get(`/api/studies/${f.dicomA.study}`),
    expect: ownersOfA(200),
  },
  {
    route: 'POST /api/studies/{studyUid}/share',
    variant: "a fresh study of provider A's, to patient B",
    request: async (f) => ({
      method: 'POST',
      url: `/api/studies/${await f.freshStudy()}/share`,
      payload: { createdfor: f.who.patientB.user.id },
    }),
    expect: signedIn({ patientA: 403, patientB: 403, providerA: 201, providerB: 404, admin: 201 }),
  },
  {
    route: 'GET /api/studies/{studyUid}/shares',
    variant: "DICOM A's study",
    request: (f) => get(`/api/studies/${f.dicomA.study}/shares`),
    // Patient A sees the study through a share but may not manage it: 403, not 404.
    expect: signedIn({ patientA: 403, patientB: 404, providerA: 200, providerB: 404, admin: 200 }),
  },
  {
    route: 'DELETE /api/studies/{studyUid}/shares/{id}',
    variant: "a fresh study share of provider A's with patient B",
    request: async (f) => {
      const { study, id } = await f.freshStudyShare();
      return { method: 'DELETE', url: `/api/studies/${study}/shares/${id}` };
    },
    // The recipient knows the share (403); everyone else but the sender and admin gets 404.
    expect: signedIn({ patientA: 404, patientB: 403, providerA: 200, providerB: 404, admin: 200 }),
  },
  {
    route: 'POST /api/sharing/verify',
    variant: 'a study share to patient B with its right code',
    request: async (f) => {
      const { id, code } = await f.freshStudyShare();
      return { method: 'POST', url: '/api/sharing/verify', payload: { sharingRequestId: id, verificationCode: code } };
    },
    // Only the recipient; the sender and the admin holding the right code get 404.
    expect: signedIn({ patientA: 404, patientB: 200, providerA: 404, providerB: 404, admin: 404 }),
  },

  // DICOM and DICOMweb: searches answer 200 with only what the caller may see; reads are 404 otherwise.
  {
    route: 'GET /api/images/{id}/dicom/metadata',
    variant: 'DICOM A',
    request: (f) => get(`/api/images/${f.dicomA.id}/dicom/metadata`),
    expect: ownersOfA(200),
  },
  ...qidoLevels.map((level): MatrixRow => ({
    route: `GET /api/dicomweb/${level}`,
    variant: 'search everything',
    request: () => get(`/api/dicomweb/${level}`),
    expect: everyone(200),
  })),
  ...qidoLevels.map((level): MatrixRow => ({
    route: `GET /api/dicomweb/${level}`,
    variant: "by DICOM A's study UID",
    request: (f) => get(`/api/dicomweb/${level}?StudyInstanceUID=${f.dicomA.study}`),
    expect: everyone(200),
  })),
  {
    route: 'GET /api/dicomweb/studies/{study}/series',
    variant: "DICOM A's study",
    request: (f) => get(`/api/dicomweb/studies/${f.dicomA.study}/series`),
    expect: everyone(200),
  },
  {
    route: 'GET /api/dicomweb/studies/{study}/instances',
    variant: "DICOM A's study",
    request: (f) => get(`/api/dicomweb/studies/${f.dicomA.study}/instances`),
    expect: everyone(200),
  },
  {
    route: 'GET /api/dicomweb/studies/{study}/series/{series}/instances',
    variant: "DICOM A's series",
    request: (f) => get(`/api/dicomweb/studies/${f.dicomA.study}/series/${f.dicomA.series}/instances`),
    expect: everyone(200),
  },
  {
    route: 'GET /api/dicomweb/studies/{study}/series/{series}/instances/{instance}',
    variant: 'DICOM A',
    request: (f) => get(`/api/dicomweb/studies/${f.dicomA.study}/series/${f.dicomA.series}/instances/${f.dicomA.sop}`),
    expect: ownersOfA(200),
  },
  {
    route: 'GET /api/dicomweb/studies/{study}/series/{series}/instances/{instance}/metadata',
    variant: 'DICOM A',
    request: (f) =>
      get(`/api/dicomweb/studies/${f.dicomA.study}/series/${f.dicomA.series}/instances/${f.dicomA.sop}/metadata`),
    expect: ownersOfA(200),
  },
  {
    route: 'GET /api/dicomweb/studies/{study}/series/{series}/instances/{instance}/frames/{frames}',
    variant: 'DICOM A, frame 1',
    request: (f) =>
      get(`/api/dicomweb/studies/${f.dicomA.study}/series/${f.dicomA.series}/instances/${f.dicomA.sop}/frames/1`),
    expect: ownersOfA(200),
  },

  // DICOMweb capabilities (PS3.18 §8.9): names no object, open like the API docs.
  ...(['GET', 'OPTIONS'] as const).map((method): MatrixRow => ({
    route: `${method} /api/dicomweb`,
    variant: 'the WADL document',
    request: () => ({ method, url: '/api/dicomweb' }),
    expect: all(200),
  })),
  // WADO-RS study and series retrieve, metadata and rendered (issue 15): only the instances the caller may see; none: 404.
  ...(
    [
      ['studies/{study}', (f: Fixtures) => `studies/${f.dicomA.study}`, "DICOM A's study"],
      [
        'studies/{study}/series/{series}',
        (f: Fixtures) => `studies/${f.dicomA.study}/series/${f.dicomA.series}`,
        "DICOM A's series",
      ],
      [
        'studies/{study}/series/{series}/instances/{instance}',
        (f: Fixtures) => `studies/${f.dicomA.study}/series/${f.dicomA.series}/instances/${f.dicomA.sop}`,
        'DICOM A',
      ],
    ] as const
  ).flatMap(([pattern, url, variant]) =>
    (['', '/metadata', '/rendered'] as const)
      // The instance's own retrieve and metadata rows are above.
      .filter((suffix) => suffix === '/rendered' || !pattern.endsWith('{instance}'))
      .map((suffix): MatrixRow => ({
        route: `GET /api/dicomweb/${pattern}${suffix}`,
        variant,
        request: (f) => get(`/api/dicomweb/${url(f)}${suffix}`),
        expect: ownersOfA(200),
      })),
  ),
  {
    route: 'GET /api/dicomweb/studies/{study}/series/{series}/instances/{instance}/frames/{frames}/rendered',
    variant: 'DICOM A, frame 1',
    request: (f) =>
      get(
        `/api/dicomweb/studies/${f.dicomA.study}/series/${f.dicomA.series}/instances/${f.dicomA.sop}/frames/1/rendered`,
      ),
    expect: ownersOfA(200),
  },

  // STOW-RS (issue 15): image:upload (providers, admin), for patient A; a patient 403.
  {
    route: 'POST /api/dicomweb/studies',
    variant: 'a fresh one-instance study for patient A',
    request: (f) => {
      const { payload, headers } = f.stowBody();
      return { method: 'POST', url: `/api/dicomweb/studies?patientId=${f.who.patientA.user.id}`, payload, headers };
    },
    expect: providersAndAdmin(200),
  },
  {
    route: 'POST /api/dicomweb/studies/{study}',
    variant: 'a fresh one-instance study for patient A, to its own UID',
    request: (f) => {
      const { study, payload, headers } = f.stowBody();
      return {
        method: 'POST',
        url: `/api/dicomweb/studies/${study}?patientId=${f.who.patientA.user.id}`,
        payload,
        headers,
      };
    },
    expect: providersAndAdmin(200),
  },

  // Sharing with someone without an account: the sharer's side (its creator; an admin may list and
  // revoke every link, never re-issue one) and the link's side
  // (the link holder's cookie reaches its own share's images and nothing else).
  {
    route: 'POST /api/external-shares/',
    variant: 'image A by link (its patient and its uploader may)',
    request: (f) => ({
      method: 'POST',
      url: '/api/external-shares/',
      payload: { imageId: f.imageA, recipientEmail: 'matrix-recipient@elsewhere.example' },
    }),
    expect: signedIn({ patientA: 201, patientB: 404, providerA: 201, providerB: 404, admin: 403 }),
  },
  {
    route: 'GET /api/external-shares/',
    variant: 'own list',
    request: () => get('/api/external-shares/'),
    expect: everyone(200),
  },
  {
    route: 'GET /api/external-shares/',
    variant: "every user's links (image:view_all)",
    request: () => get('/api/external-shares/?scope=all'),
    expect: adminOnly(200),
  },
  {
    route: 'DELETE /api/external-shares/{id}',
    variant: "a fresh link of provider A's (its sharer, or image:view_all)",
    request: async (f) => ({ method: 'DELETE', url: `/api/external-shares/${(await f.freshLink()).shareId}` }),
    expect: signedIn({ patientA: 404, patientB: 404, providerA: 200, providerB: 404, admin: 200 }),
  },
  {
    route: 'POST /api/external-shares/{id}/reissue',
    variant: "a fresh link of provider A's",
    request: async (f) => ({ method: 'POST', url: `/api/external-shares/${(await f.freshLink()).shareId}/reissue` }),
    expect: signedIn({ patientA: 404, patientB: 404, providerA: 200, providerB: 404, admin: 404 }),
  },
  {
    route: 'POST /api/external/link',
    variant: 'the live link (its state and end only)',
    request: (f) => ({ method: 'POST', url: '/api/external/link', payload: { token: f.link.token } }),
    expect: all(200),
  },
  {
    route: 'POST /api/external/session',
    variant: 'a fresh link and its code',
    request: async (f) => {
      const { token, code } = await f.freshLink();
      return { method: 'POST', url: '/api/external/session', payload: { token, code } };
    },
    expect: all(200),
  },
  {
    route: 'DELETE /api/external/session',
    variant: 'forget the cookie',
    request: () => ({ method: 'DELETE', url: '/api/external/session' }),
    expect: all(200),
  },
  {
    route: 'GET /api/external/view',
    variant: 'own share',
    request: () => get('/api/external/view'),
    expect: linkHolderOnly(200),
  },
  ...(['content', 'thumbnail', 'download'] as const).flatMap((variant): MatrixRow[] => [
    {
      route: `GET /api/external/images/{id}/${variant}`,
      variant: 'the shared image',
      request: (f) => get(`/api/external/images/${f.link.imageId}/${variant}`),
      expect: linkHolderOnly(200),
    },
    {
      route: `GET /api/external/images/{id}/${variant}`,
      variant: 'image A (not in the share)',
      request: (f) => get(`/api/external/images/${f.imageA}/${variant}`),
      expect: linkHolderOnly(404),
    },
  ]),

  // Analysis (analysis:run, then sight of the content).
  {
    route: 'GET /api/analysis/{imageId}',
    variant: 'image A',
    request: (f) => get(`/api/analysis/${f.imageA}`),
    expect: analysisOfA(200),
  },
  {
    route: 'GET /api/analysis/{imageId}',
    variant: 'shared with provider B, verified',
    request: (f) => get(`/api/analysis/${f.sharedWithB.verified}`),
    expect: signedIn({ patientA: 403, patientB: 403, providerA: 200, providerB: 200, admin: 200 }),
  },
  {
    route: 'GET /api/analysis/{imageId}',
    variant: 'shared with provider B, not yet verified',
    request: (f) => get(`/api/analysis/${f.sharedWithB.unverified}`),
    expect: signedIn({ patientA: 403, patientB: 403, providerA: 200, providerB: 404, admin: 200 }),
  },
  {
    route: 'POST /api/analysis/{imageId}/run',
    variant: 'image A',
    request: (f) => ({ method: 'POST', url: `/api/analysis/${f.imageA}/run` }),
    expect: analysisOfA(201),
  },
  {
    route: 'GET /api/analysis/{imageId}/history',
    variant: 'image A',
    request: (f) => get(`/api/analysis/${f.imageA}/history`),
    expect: analysisOfA(200),
  },
];

/** Applies the identity's own token unless the row chose one; the link holder's cookie on every request. */
export function withToken(req: CellRequest, f: Fixtures, who: Identity): CellRequest {
  const withCookie = who === 'linkHolder' ? { ...req, headers: { ...req.headers, cookie: f.link.cookie } } : req;
  return 'token' in req ? withCookie : { ...withCookie, token: tokenOf(f, who) };
}

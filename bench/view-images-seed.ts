/**
 * What the View Images benches measure against (bench/lighthouse.ts, bench/web-profile.ts): the
 * server in a child process (PGlite, outbox mail) serving a built web app, Debian's Chromium, and a
 * provider with six uploaded JPEGs, thumbnails made, and a patient they were uploaded for.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { ROOT, outboxReader, signInOverHttp, startServer } from '../server/test/spawned-server.ts';

export const ADMIN = { email: 'lighthouse-admin@bench.medshare', password: 'Lighthouse-admin-passphrase-1' };
const PHOTO = readFileSync(join(ROOT, 'server/test/fixtures/other/photo_hopper_portrait.jpg'));

async function post(base: string, path: string, body: unknown, token?: string) {
  const isForm = body instanceof FormData;
  const res = await fetch(`${base}/api${path}`, {
    method: 'POST',
    headers: {
      ...(isForm ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: isForm ? body : JSON.stringify(body),
  });
  const json = (await res.json()) as { data?: { user?: { id: string } } };
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A provider with six uploaded images (thumbnails made) and a patient: the View Images page has content. */
export async function seed(base: string, outbox: ReturnType<typeof outboxReader>) {
  const provider = {
    role: 'healthProvider',
    email: 'dr.lighthouse@example.org',
    username: 'drlighthouse',
    password: 'Lighthouse-provider-passphrase',
    firstname: 'Sana',
    lastname: 'Lighthouse',
  };
  const patient = {
    ...provider,
    role: 'patient',
    email: 'pat.lighthouse@example.org',
    username: 'patlighthouse',
    firstname: 'Amina',
    lastname: 'Khan',
  };
  const providerId = (await post(base, '/auth/register', provider)).data!.user!.id;
  const patientId = (await post(base, '/auth/register', patient)).data!.user!.id;
  const admin = await signInOverHttp(base, outbox, ADMIN.email, ADMIN.password);
  const toggle = await fetch(`${base}/api/users/toggleUserStatus/${providerId}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${admin.token}` },
  });
  if (!toggle.ok) throw new Error(`approve: ${toggle.status}`);
  const session = await signInOverHttp(base, outbox, provider.email, provider.password);
  for (let i = 1; i <= 6; i++) {
    const form = new FormData();
    form.append('caption', `Chest X-ray ${i}`);
    form.append('patientId', patientId);
    form.append('file', new Blob([PHOTO], { type: 'image/jpeg' }), `xray-${i}.jpg`);
    await post(base, '/upload/image', form, session.token);
  }
  // Thumbnails are made after the upload answers; measure the page as a person would see it later.
  for (const deadline = Date.now() + 60_000; ;) {
    const res = await fetch(`${base}/api/upload/my-images`, { headers: { authorization: `Bearer ${session.token}` } });
    const list = ((await res.json()) as { data: { thumbnailStatus: string }[] }).data;
    if (list.length === 6 && list.every((i) => i.thumbnailStatus !== 'pending')) break;
    if (Date.now() > deadline) throw new Error('thumbnails not ready after 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  const me = await fetch(`${base}/api/users/profile`, { headers: { authorization: `Bearer ${session.token}` } });
  const user = ((await me.json()) as { data: unknown }).data;
  return { token: session.token, user };
}

/** The value of redux-persist's `persist:root` (web/src/lib/store.ts) that makes the web app start signed in. */
export function persistedSession(session: { token: string; user: unknown }): string {
  return JSON.stringify({
    session: JSON.stringify(session),
    _persist: JSON.stringify({ version: -1, rehydrated: true }),
  });
}

/**
 * Starts the server on `webDist` at `port` with a fresh data directory, seeds it and launches
 * Chromium (over a pipe: no debugging port). `close` ends both and removes the data.
 */
export async function startSeededApp({ webDist, port, chromium }: { webDist: string; port: number; chromium: string }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'medshare-view-images-bench-'));
  const server = await startServer({
    dataDir,
    admin: ADMIN,
    port,
    env: { WEB_DIST: webDist, PUBLIC_URL: `http://127.0.0.1:${port}` },
  });
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await server.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      pipe: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-sync'],
    });
    const session = await seed(server.base, outboxReader(dataDir));
    return { base: server.base, browser, session, close };
  } catch (err) {
    await close();
    throw err;
  }
}

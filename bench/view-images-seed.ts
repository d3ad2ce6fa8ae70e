/**
 * What the View Images benches measure against (bench/lighthouse.ts, bench/web-profile.ts): the
 * server in a child process (PGlite, outbox mail) serving a built web app, Debian's Chromium, and a
 * provider with six uploaded JPEGs, thumbnails made, and a patient they were uploaded for; with
 * `study`, also a one-instance DICOM study (the page's studies section above the image cards).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import puppeteer, { type Browser } from 'puppeteer-core';
import { findNginx, nginxConfig, waitFor } from '../scripts/scale-out.ts';
import { ROOT, outboxReader, signInOverHttp, startServer } from '../server/test/spawned-server.ts';

export const ADMIN = { email: 'lighthouse-admin@bench.medshare', password: 'Lighthouse-admin-passphrase-1' };
const PHOTO = readFileSync(join(ROOT, 'server/test/fixtures/other/photo_hopper_portrait.jpg'));
const DICOM = readFileSync(join(ROOT, 'server/test/fixtures/dicom/ct_explicit_le_16bit_signed_small.dcm'));

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
export async function seed(base: string, outbox: ReturnType<typeof outboxReader>, { study = false } = {}) {
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
  if (study) {
    const form = new FormData();
    form.append('caption', 'Head CT');
    form.append('patientId', patientId);
    form.append('file', new Blob([DICOM], { type: 'application/dicom' }), 'head-ct.dcm');
    await post(base, '/upload/image', form, session.token);
  }
  // Thumbnails are made after the upload answers; measure the page as a person would see it later.
  for (const deadline = Date.now() + 60_000; ;) {
    const res = await fetch(`${base}/api/upload/my-images`, { headers: { authorization: `Bearer ${session.token}` } });
    const list = ((await res.json()) as { data: { thumbnailStatus: string }[] }).data;
    if (list.length >= 6 && list.every((i) => i.thumbnailStatus !== 'pending')) break;
    if (Date.now() > deadline) throw new Error('thumbnails not ready after 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  const profile = async (token: string) => {
    const me = await fetch(`${base}/api/users/profile`, { headers: { authorization: `Bearer ${token}` } });
    return ((await me.json()) as { data: unknown }).data;
  };
  // The administrator's session too, for a bench that walks the admin's pages.
  return {
    token: session.token,
    user: await profile(session.token),
    admin: { token: admin.token, user: await profile(admin.token) },
  };
}

/** The value of redux-persist's `persist:root` (web/src/lib/store.ts) that makes the web app start signed in. */
export function persistedSession(session: { token: string; user: unknown }): string {
  return JSON.stringify({
    session: JSON.stringify(session),
    _persist: JSON.stringify({ version: -1, rehydrated: true }),
  });
}

/**
 * The deployment's edge (docs/operations.md › Several instances (PostgreSQL, Redis, S3), "TLS"):
 * Debian's nginx terminating TLS with HTTP/2 and passing to the app with deploy/medshare-proxy.conf,
 * on `port`, with a throwaway self-signed certificate (the config: `nginxConfig` of scripts/scale-out.ts).
 */
async function startTlsProxy(dir: string, port: number, appPort: number) {
  const nginx = findNginx();
  if (!nginx) throw new Error('nginx is not installed (Debian: apt-get install -y nginx)');
  mkdirSync(dir);
  chmodSync(dir, 0o755);
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl could not make a certificate:\n${made.stderr}`);
  writeFileSync(
    join(dir, 'nginx.conf'),
    nginxConfig(dir, port, [appPort], { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') }),
  );
  const child = spawn(nginx, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  // A bench that dies must not leave its proxy behind on the shared machine.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  child.once('exit', () => process.off('exit', orphan));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Ready once it completes a TLS handshake (the app behind it already answers: startServer waited).
  const handshake = () =>
    new Promise<boolean>((resolve) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  await waitFor('nginx', handshake, () => child.exitCode === null, 5_000).catch((err: Error) => {
    throw new Error(`${err.message}: ${stderr}`);
  });
  return { base: `https://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

/**
 * Starts the server on `webDist` at `port` with a fresh data directory, seeds it and launches
 * Chromium (over a pipe: no debugging port). `close` ends both and removes the data. `proxy: 'tls'`
 * puts the deployment's nginx (TLS, HTTP/2) in front, on `port + 1`, and the browser accepts its
 * self-signed certificate; `base` is then the proxy's.
 */
export async function startSeededApp({
  webDist,
  port,
  chromium,
  proxy = 'none',
  study = false,
}: {
  webDist: string;
  port: number;
  chromium: string;
  proxy?: 'none' | 'tls';
  study?: boolean;
}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'medshare-view-images-bench-'));
  const server = await startServer({
    dataDir,
    admin: ADMIN,
    port,
    env: {
      WEB_DIST: webDist,
      PUBLIC_URL: proxy === 'tls' ? `https://127.0.0.1:${port + 1}` : `http://127.0.0.1:${port}`,
    },
  });
  let browser: Browser | undefined;
  let edge: { base: string; stop: () => void } | undefined;
  const close = async () => {
    await browser?.close();
    edge?.stop();
    await server.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    if (proxy === 'tls') edge = await startTlsProxy(join(dataDir, 'nginx'), port + 1, port);
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      pipe: true,
      acceptInsecureCerts: proxy === 'tls',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-sync'],
    });
    const session = await seed(server.base, outboxReader(dataDir), { study });
    return { base: edge?.base ?? server.base, browser, session, close };
  } catch (err) {
    await close();
    throw err;
  }
}

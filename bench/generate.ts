/**
 * Bench data: users, images (from server/test/fixtures), shares and messages at chosen sizes.
 *
 *   npx node bench/generate.ts --users 1000 --images 1000 --messages 1000 [--mode sql|api] [--keep]
 *
 * Two ways in:
 * - `api` (small, realistic sets): patients register and confirm through the API, the admin uploads
 *   fixture files for them (each upload creates the patient's share) and sends them messages.
 * - `sql` (10^5–10^6 rows): a few templates go through the API first (so blobs, wrapped keys and
 *   message ciphertexts are real), then rows are multiplied with INSERT … SELECT generate_series:
 *   every bulk image points at one of the template blobs, every bulk message copies a template
 *   message's ciphertext between the same two people, so content and chats still open.
 *
 * Standalone it starts its own server (port 8320, database h6_generate; --keep leaves the database).
 * bench/list-scaling.ts and bench/http-scenarios.ts import `generate`. Not part of npm test.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { isImageFixture } from '../server/src/modules/images/images.test-helpers.ts';
import {
  ADMIN,
  type MedShare,
  ROOT,
  fmt,
  jsonOf,
  latestCode,
  multipart,
  request,
  runPool,
  signIn,
  startMedShare,
  withPg,
} from './support.ts';

export interface Sizes {
  users: number;
  images: number;
  messages: number;
}

const TYPES: Record<string, string> = {
  '.dcm': 'application/dicom',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
};

/** The fixtures an upload accepts: valid DICOM images, the PDFs, the PNG and the JPEG. */
export function fixtureFiles(): Array<{ name: string; type: string; data: Buffer }> {
  const base = join(ROOT, 'server/test/fixtures');
  return ['dicom', 'other'].flatMap((dir) =>
    readdirSync(join(base, dir))
      .filter((n) => (dir === 'dicom' ? isImageFixture(n) : n.slice(n.lastIndexOf('.')) in TYPES))
      .sort()
      .map((name) => ({
        name,
        type: TYPES[name.slice(name.lastIndexOf('.'))]!,
        data: readFileSync(join(base, dir, name)),
      })),
  );
}

const FIRST = ['Ayesha', 'Bilal', 'Fatima', 'Hamza', 'Imran', 'Javeria', 'Kamran', 'Layla', 'Maryam', 'Nadia'];
const LAST = ['Khan', 'Ahmed', 'Malik', 'Hussain', 'Qureshi', 'Sheikh', 'Butt', 'Raza', 'Siddiqui', 'Iqbal'];
const json = { 'content-type': 'application/json' };

export interface Generated {
  adminToken: string;
  patients: Array<{ id: string; email: string; token: string }>;
  imageIds: string[];
  seconds: number;
}

/** Registers and confirms `count` patients through the API; returns their ids and tokens. */
async function apiPatients(ms: MedShare, count: number, tag: string) {
  const out: Generated['patients'] = [];
  await runPool(count, 4, async (i) => {
    const email = `p-${tag}-${i}@bench.example`;
    const reg = await request(
      ms.port,
      'POST',
      '/api/auth/register',
      JSON.stringify({
        role: 'patient',
        email,
        username: `p_${tag}_${i}`,
        password: 'Bench-patient-password-1',
        firstname: FIRST[i % FIRST.length],
        lastname: LAST[(i * 7) % LAST.length],
      }),
      json,
    );
    if (reg.status !== 201) throw new Error(`register ${email}: ${reg.status} ${reg.body.toString()}`);
    const id = jsonOf<{ data: { user: { id: string } } }>(reg).data.user.id;
    const confirm = await request(
      ms.port,
      'POST',
      '/api/auth/confirm',
      JSON.stringify({ email, code: latestCode(ms.dataDir, email) }),
      json,
    );
    if (confirm.status !== 200) throw new Error(`confirm ${email}: ${confirm.status} ${confirm.body.toString()}`);
    out.push({ id, email, token: jsonOf<{ data: { token: string } }>(confirm).data.token });
  });
  return out;
}

/** Uploads `count` fixture files as the admin, round-robin over the patients (each upload shares with its patient). */
async function apiImages(ms: MedShare, token: string, patients: Generated['patients'], count: number) {
  const files = fixtureFiles();
  const ids: string[] = [];
  await runPool(count, 4, async (i) => {
    const f = files[i % files.length]!;
    const fields: Array<[string, string | { name: string; type: string; data: Buffer }]> = [
      ['caption', `${f.name} #${i}`],
      ['file', f],
    ];
    if (patients.length) fields.push(['patientId', patients[i % patients.length]!.id]);
    const b = await multipart(fields);
    const res = await request(ms.port, 'POST', '/api/upload/image', b.body, {
      authorization: `Bearer ${token}`,
      'content-type': b.contentType,
    });
    if (res.status !== 201) throw new Error(`upload ${f.name}: ${res.status} ${res.body.toString()}`);
    ids.push(jsonOf<{ data: { id: string } }>(res).data.id);
  });
  return ids;
}

async function apiMessages(ms: MedShare, token: string, patients: Generated['patients'], count: number) {
  await runPool(count, 4, async (i) => {
    const p = patients[i % patients.length]!;
    const res = await request(
      ms.port,
      'POST',
      '/api/message/send',
      JSON.stringify({ recipientId: p.id, content: `Your results #${i} are ready.` }),
      { ...json, authorization: `Bearer ${token}` },
    );
    if (res.status !== 201) throw new Error(`send: ${res.status} ${res.body.toString()}`);
  });
}

/** Multiplies users, images (+ their patient shares) and messages in SQL from the API-made templates. */
async function bulk(c: pg.Client, sizes: Sizes, have: { users: number; images: number; messages: number }) {
  const users = Math.max(0, sizes.users - have.users);
  if (users) {
    await c.query(
      `INSERT INTO users (email, username, password_hash, role_id, active, email_verified_at, approved_at,
                          firstname, lastname, gender, created_at, updated_at)
       SELECT 'bulk' || i || '@example' || (i % 10) || '.org', 'bulk' || i, '!bench',
              CASE WHEN i % 100 < 70 THEN (SELECT id FROM roles WHERE name = 'patient')
                   ELSE (SELECT id FROM roles WHERE name = 'healthProvider') END,
              true, now(), now(),
              ($1::text[])[1 + i % cardinality($1::text[])],
              ($2::text[])[1 + (i * 7) % cardinality($2::text[])] || '-' || (i % 997),
              (ARRAY['male', 'female', 'other'])[1 + i % 3],
              now() - make_interval(secs => i * 60), now()
       FROM generate_series($4::int + 1, $4::int + $3::int) AS s(i)`,
      [FIRST, LAST, users, have.users],
    );
  }
  const images = Math.max(0, sizes.images - have.images);
  if (images) {
    // Templates: the API-made images. Each bulk row copies one's metadata for a patient picked among
    // the patients, spread over the past year. storage_key is unique, so bulk rows have no blob (and
    // no thumbnail): lists and searches see them, content downloads are for the API-made images.
    await c.query(
      `WITH t AS (SELECT row_number() OVER (ORDER BY id) - 1 AS k, * FROM images WHERE deleted_at IS NULL),
            n AS (SELECT count(*) AS n FROM t),
            -- One array, indexed per row: a join on a computed key planned as a nested loop over 10^6 × 7·10^5.
            p AS (SELECT array_agg(u.id ORDER BY u.id) AS ids FROM users u JOIN roles r ON r.id = u.role_id
                  WHERE r.name = 'patient' AND u.deleted_at IS NULL)
       INSERT INTO images (id, uploader_id, patient_id, caption, content_type, original_name, size_bytes, sha256,
                           storage_key, wrapped_key, key_id, enc_format, thumbnail_status, thumb_storage_key,
                           thumb_wrapped_key, thumb_key_id, thumb_content_type, thumb_size_bytes, thumb_sha256,
                           created_at, dicom_kind, dicom_modality, dicom_rows, dicom_columns, dicom_frames)
       SELECT g.id, t.uploader_id, p.ids[1 + ((g.i::bigint * 7919) % cardinality(p.ids))::int], t.caption || ' bulk ' || g.i, t.content_type, t.original_name,
              t.size_bytes, t.sha256, g.id::text, t.wrapped_key, t.key_id, t.enc_format, 'none',
              NULL, NULL, NULL, NULL, NULL, NULL,
              now() - make_interval(secs => g.i * 30), t.dicom_kind, t.dicom_modality, t.dicom_rows,
              t.dicom_columns, t.dicom_frames
       FROM (SELECT i, gen_random_uuid() AS id FROM generate_series(1, $1::int) AS s(i)) AS g
       JOIN t ON t.k = g.i % (SELECT n FROM n)
       CROSS JOIN p`,
      [images],
    );
    // Each bulk image's patient share, as an upload with patientId makes it (code hash of a template share).
    await c.query(
      `INSERT INTO shares (id, image_id, created_by, created_for, code_hash, expires_at, is_patient_share, created_at)
       SELECT gen_random_uuid(), i.id, i.uploader_id, i.patient_id,
              (SELECT code_hash FROM shares LIMIT 1), NULL, true, i.created_at
       FROM images i WHERE i.caption LIKE '% bulk %' AND i.patient_id IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM shares s WHERE s.image_id = i.id)`,
    );
  }
  const messages = Math.max(0, sizes.messages - have.messages);
  if (messages) {
    await c.query(
      `WITH t AS (SELECT row_number() OVER (ORDER BY id) - 1 AS k, * FROM messages), n AS (SELECT count(*) AS n FROM t)
       INSERT INTO messages (sender_id, recipient_id, key_id, nonce, ciphertext, created_at)
       SELECT t.sender_id, t.recipient_id, t.key_id, t.nonce, t.ciphertext, now() - make_interval(secs => i)
       FROM generate_series(1, $1::int) AS s(i) JOIN t ON t.k = i % (SELECT n FROM n)`,
      [messages],
    );
  }
  // VACUUM as well: fresh bulk rows have no visibility map yet, which steady-state tables (autovacuum) do.
  await c.query('VACUUM ANALYZE');
}

/**
 * Fills a running server's database. `mode` 'api' does everything through HTTP; 'sql' makes
 * templates through HTTP (a few patients, every fixture once, a few messages) and the rest in bulk.
 */
export async function generate(ms: MedShare, sizes: Sizes, mode: 'api' | 'sql', tag = 'g'): Promise<Generated> {
  const t0 = performance.now();
  const adminToken = await signIn(ms, ADMIN.email, ADMIN.password);
  const templates = mode === 'api' ? sizes : { users: Math.min(sizes.users, 5), images: 0, messages: 0 };
  const patients = await apiPatients(ms, Math.max(0, templates.users - 1), tag);
  const files = fixtureFiles().length;
  const imageIds = await apiImages(
    ms,
    adminToken,
    patients,
    mode === 'api' ? sizes.images : Math.min(sizes.images, files),
  );
  if (patients.length)
    await apiMessages(ms, adminToken, patients, mode === 'api' ? sizes.messages : Math.min(sizes.messages, 10));
  if (mode === 'sql') {
    await withPg(ms.databaseUrl, async (c) => {
      const count = async (t: string) => Number((await c.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
      await bulk(c, sizes, {
        users: await count('users'),
        images: await count('images'),
        messages: await count('messages'),
      });
    });
  }
  return { adminToken, patients, imageIds, seconds: (performance.now() - t0) / 1000 };
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      users: { type: 'string', default: '100' },
      images: { type: 'string', default: '100' },
      messages: { type: 'string', default: '100' },
      mode: { type: 'string', default: '' },
      port: { type: 'string', default: '8320' },
      keep: { type: 'boolean', default: false },
    },
  });
  const sizes = { users: Number(args.users), images: Number(args.images), messages: Number(args.messages) };
  const mode = (args.mode || (Math.max(sizes.users, sizes.images, sizes.messages) > 2000 ? 'sql' : 'api')) as
    'api' | 'sql';
  const ms = await startMedShare({ port: Number(args.port), database: 'h6_generate' });
  try {
    const g = await generate(ms, sizes, mode);
    const counts = await withPg(ms.databaseUrl, async (c) => {
      const out: Record<string, number> = {};
      for (const t of ['users', 'images', 'shares', 'messages'])
        out[t] = Number((await c.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
      return out;
    });
    console.log(`mode ${mode}: ${JSON.stringify(counts)} in ${fmt(g.seconds)} s (database ${ms.databaseUrl})`);
  } finally {
    if (args.keep) {
      ms.child.kill('SIGTERM');
      console.log(`kept database h6_generate`);
    } else await ms.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * The dashboard users table at 100 000 users: latency of GET /api/users pages and the query plans.
 *
 *   npx node bench/users-list.ts [--users 100000] [--iterations 100]
 *   MEDSHARE_TEST_DB=postgres TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx node bench/users-list.ts
 *
 * The real app (test harness: fresh database, migrations, seed) answers through app.inject, so
 * the figures are server time (routing, auth, validation, SQL, serialisation) without a network.
 * Users are inserted with one INSERT … SELECT generate_series. Not part of npm test.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { CompiledQuery, type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import { LIST_MAX_WINDOW } from '@medshare/contracts';
import { createTestApp } from '../server/test/harness.ts';
import { testDbKind } from '../server/test/database.ts';
import { createTokenSigner } from '../server/src/modules/auth/tokens.ts';
import {
  type UserListFilter,
  type UserSortKey,
  createUsersRepository,
} from '../server/src/modules/users/users.repository.ts';

const { values: args } = parseArgs({
  options: { users: { type: 'string', default: '100000' }, iterations: { type: 'string', default: '' } },
});
const USERS = Number(args.users);
const ITERATIONS = Number(args.iterations || (testDbKind === 'postgres' ? 200 : 50));

const FIRST = [
  'Ayesha',
  'Bilal',
  'Fatima',
  'Hamza',
  'Imran',
  'Javeria',
  'Kamran',
  'Kashif',
  'Layla',
  'Maryam',
  'Nadia',
  'Omar',
  'Qasim',
  'Rabia',
  'Saad',
  'Sana',
  'Tariq',
  'Usman',
  'Waqar',
  'Zainab',
  'Ali',
  'Hina',
  'Asad',
  'Noor',
  'Farhan',
];
const LAST = [
  'Khan',
  'Ahmed',
  'Malik',
  'Hussain',
  'Qureshi',
  'Sheikh',
  'Butt',
  'Chaudhry',
  'Raza',
  'Siddiqui',
  'Iqbal',
  'Mirza',
  'Javed',
  'Aslam',
  'Baig',
  'Kazmi',
  'Naqvi',
  'Rizvi',
  'Abbasi',
  'Awan',
  'Bhatti',
  'Dar',
  'Gill',
  'Haider',
  'Jamil',
  'Karim',
  'Lodhi',
  'Memon',
  'Niazi',
  'Paracha',
];

const t = await createTestApp();
const db = t.app.ctx.database.db;
const started = Date.now();

const text = (xs: string[]) => sql.raw(`ARRAY[${xs.map((x) => `'${x}'`).join(',')}]`);
// ~70 % patients, ~29 % providers, ~1 % providers awaiting approval; spread over three years.
await sql`
  INSERT INTO users (email, username, password_hash, role_id, active, email_verified_at, approved_at,
                     firstname, lastname, gender, created_at, updated_at)
  SELECT 'user' || i || '@example' || (i % 10) || '.org',
         'user' || i,
         '!bench',
         CASE WHEN i % 100 < 70 THEN (SELECT id FROM roles WHERE name = 'patient') ELSE (SELECT id FROM roles WHERE name = 'healthProvider') END,
         i % 100 <> 99,
         now(),
         CASE WHEN i % 100 = 99 THEN NULL ELSE now() END,
         (${text(FIRST)})[1 + i % ${FIRST.length}],
         (${text(LAST)})[1 + (i * 7) % ${LAST.length}] || CASE WHEN i % 3 = 0 THEN '' ELSE '-' || (i % 997) END,
         (ARRAY['male', 'female', 'other'])[1 + i % 3],
         now() - make_interval(secs => i * 900),
         now()
  FROM generate_series(1, ${USERS}) AS s(i)`.execute(db);
await sql`ANALYZE users`.execute(db);
const seedMs = Date.now() - started;

/** A session and token made directly, so the bench needs no mail round trip per viewer. */
const signer = createTokenSigner(t.config.jwtSecret);
async function tokenFor(userId: string) {
  const sid = randomUUID();
  const expiresAt = new Date(Date.now() + 3_600_000);
  await db
    .insertInto('sessions')
    .values({ id: sid, user_id: userId, last_seen_at: new Date(), expires_at: expiresAt })
    .execute();
  return signer.sign({ sub: userId, sid }, expiresAt);
}
const adminId = (await db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow())
  .id;
const providerId = (
  await db.selectFrom('users').select('id').where('username', '=', 'user70').executeTakeFirstOrThrow()
).id;
const admin = await tokenFor(adminId);
const provider = await tokenFor(providerId);

/** The last page of 5 (the default limit) within the rows a list pages through. */
const DEEP_PAGE = Math.floor(Math.min(USERS, LIST_MAX_WINDOW) / 5);
const scenarios: Array<{ name: string; url: string; token: string }> = [
  { name: 'first page (newest)', url: '/api/users', token: admin },
  // Pages reach only the first LIST_MAX_WINDOW matching rows (search or filter for the rest).
  { name: 'deep page (last in the window)', url: `/api/users?page=${DEEP_PAGE}`, token: admin },
  { name: 'sort name, first page', url: '/api/users?sort=name&order=asc&limit=25', token: admin },
  {
    name: 'sort name, deep page',
    url: `/api/users?sort=name&order=asc&limit=25&page=${Math.floor(Math.min(USERS, LIST_MAX_WINDOW) / 25)}`,
    token: admin,
  },
  { name: 'sort email desc', url: '/api/users?sort=email&order=desc&limit=25', token: admin },
  { name: 'sort role', url: '/api/users?sort=role&order=asc&limit=25', token: admin },
  { name: 'search "ka" (broad)', url: '/api/users?search=ka&limit=25', token: admin },
  { name: 'search "user4242" (narrow)', url: '/api/users?search=user4242', token: admin },
  { name: 'search "sana kh" (full name)', url: '/api/users?search=sana%20kh&sort=name&order=asc', token: admin },
  { name: 'role filter + sort name', url: '/api/users?role=healthProvider&sort=name&order=asc&limit=25', token: admin },
  { name: 'pending providers', url: '/api/users?pending=true', token: admin },
  { name: 'provider view, first page', url: '/api/users', token: provider },
  { name: 'provider view, search "ali"', url: '/api/users?search=ali&limit=25', token: provider },
  { name: 'stats (totalUsers)', url: '/api/users/stats', token: admin },
];

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const results: Array<{ name: string; p50: number; p99: number; items: number; total: number }> = [];
for (const s of scenarios) {
  const times: number[] = [];
  let last: { data: unknown[]; pagination?: { totalItems: number } } | null = null;
  for (let i = 0; i < ITERATIONS + 5; i++) {
    const t0 = process.hrtime.bigint();
    const res = await t.app.inject({ method: 'GET', url: s.url, headers: { authorization: `Bearer ${s.token}` } });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.statusCode !== 200) throw new Error(`${s.url}: ${res.statusCode} ${res.body}`);
    if (i >= 5) times.push(ms);
    last = res.json();
  }
  times.sort((a, b) => a - b);
  const data = last!.data as unknown;
  results.push({
    name: s.name,
    p50: pct(times, 50),
    p99: pct(times, 99),
    items: Array.isArray(data) ? data.length : 1,
    total: last!.pagination?.totalItems ?? (data as { totalUsers: number }).totalUsers,
  });
}

/** The repository's own SQL, captured through a plugin, then EXPLAIN ANALYZE'd. */
async function plan(filter: UserListFilter, key: UserSortKey, dir: 'asc' | 'desc', offset: number, limit: number) {
  let node: RootOperationNode | null = null;
  const capture: KyselyPlugin = {
    // The executed root comes last (subqueries are transformed while the query is built).
    transformQuery: (a) => (node = a.node),
    transformResult: async (a) => a.result,
  };
  await createUsersRepository(db.withPlugin(capture)).list(filter, { key, dir }, offset, limit);
  const compiled = db.getExecutor().compileQuery(node!, { queryId: 'bench' } as never);
  const out = await db.executeQuery<{ 'QUERY PLAN': string }>(
    CompiledQuery.raw(`EXPLAIN (ANALYZE, COSTS OFF) ${compiled.sql}`, [...compiled.parameters]),
  );
  const lines = out.rows.map((r) => r['QUERY PLAN']);
  if (process.env.BENCH_PLANS) console.error(`${compiled.sql}\n${lines.join('\n')}\n`);
  // Plan nodes only (the first line and the '->' lines), without their details.
  const shape = lines
    .filter((l, i) => i === 0 || l.trim().startsWith('->'))
    .map((l) =>
      l
        .trim()
        .replace(/^->\s*/, '')
        .replace(/\s*\(actual.*$/, '')
        .replace(/ on (users|roles)( users_1)?$/, ''),
    )
    .filter((l) => !l.startsWith('Index Scan using roles_pkey'))
    .join(' → ');
  const exec = lines.find((l) => l.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '';
  return { shape, exec };
}
const roleIds = await createUsersRepository(db).roleIds();
const all: UserListFilter = { roleIds: null, usableOnly: false, pendingOnly: false, search: null };
const plans = [
  { name: 'first page (created_at desc)', ...(await plan(all, 'createdAt', 'desc', 0, 5)) },
  {
    name: `deep page read forward (offset ${USERS - 10}: ${USERS - 10 >= LIST_MAX_WINDOW ? 'past the list window, which the service refuses' : 'the service reads it from the end'})`,
    ...(await plan(all, 'createdAt', 'desc', USERS - 10, 5)),
  },
  {
    name: 'the same page read from the end (how the repository reads a page past the middle)',
    ...(await plan(all, 'createdAt', 'asc', 6, 5)),
  },
  {
    name: `middle page (offset ${Math.floor(USERS / 2)}, worst case)`,
    ...(await plan(all, 'createdAt', 'desc', Math.floor(USERS / 2), 5)),
  },
  { name: 'sort name', ...(await plan(all, 'name', 'asc', 0, 25)) },
  { name: 'search "ka"', ...(await plan({ ...all, search: 'ka' }, 'createdAt', 'desc', 0, 25)) },
  { name: 'search "user4242"', ...(await plan({ ...all, search: 'user4242' }, 'createdAt', 'desc', 0, 5)) },
  {
    name: 'provider view',
    ...(await plan(
      { ...all, roleIds: [roleIds.get('patient')!, roleIds.get('healthProvider')!], usableOnly: true },
      'createdAt',
      'desc',
      0,
      5,
    )),
  },
];

const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `\n### GET /api/users at ${USERS.toLocaleString('en')} users — ${testDbKind === 'postgres' ? 'PostgreSQL' : 'PGlite'}\n`,
);
console.log(
  `${new Date().toISOString().slice(0, 10)}, ${os.cpus().length}× ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; seeding took ${(seedMs / 1000).toFixed(1)} s; ${ITERATIONS} requests per row after 5 warm-up.\n`,
);
console.log('| request | p50 ms | p99 ms | rows | totalItems |');
console.log('|---|---:|---:|---:|---:|');
for (const r of results)
  console.log(`| ${r.name} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.items} | ${r.total} |`);
console.log('\n| query (list only; count runs beside it) | plan | execution |');
console.log('|---|---|---:|');
for (const p of plans) console.log(`| ${p.name} | ${p.shape} | ${p.exec} |`);

await t.close();

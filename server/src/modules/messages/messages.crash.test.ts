import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/database.ts';
import {
  type SpawnedServer,
  outboxReader,
  registerPatientOverHttp,
  signInOverHttp,
  startServer,
} from '../../../test/spawned-server.ts';

/**
 * The real server process, killed with SIGKILL while two users send each other messages: after a
 * restart on the same data, every message that was answered 201 is there, once, with its text.
 */
const ADMIN = { email: 'msg-crash-admin@test.medshare', password: 'Crash-test-admin-password-1' };

let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const servers: SpawnedServer[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'medshare-msg-crash-'));
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL');
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = async () => {
  const s = await startServer({
    dataDir,
    admin: ADMIN,
    databaseUrl: database.target.kind === 'postgres' ? database.target.url : null,
  });
  servers.push(s);
  return s;
};

interface Sent {
  id: number;
  senderId: string;
  content: string;
}

describe('crash safety of message sends', () => {
  it('keeps every message answered 201 after kill -9 during concurrent sends', { timeout: 120_000 }, async () => {
    const outbox = outboxReader(dataDir);
    const first = await start();
    const admin = await signInOverHttp(first.base, outbox, ADMIN.email, ADMIN.password);
    const patient = await registerPatientOverHttp(first.base, outbox, `crashpat${Date.now().toString(36)}`);

    const acknowledged: Sent[] = [];
    const outcomes: Array<number | 'aborted'> = [];
    let stop = false;
    const sender = async (from: { token: string; userId: string }, to: string, lane: number) => {
      for (let i = 0; !stop; i++) {
        const content = `lane ${lane} message ${i} ${'x'.repeat(i % 50)}`;
        const res = await fetch(`${first.base}/api/message/send`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${from.token}` },
          body: JSON.stringify({ recipientId: to, content }),
        }).catch(() => null);
        if (!res) {
          outcomes.push('aborted');
          return;
        }
        outcomes.push(res.status);
        if (res.status === 201) {
          const data = ((await res.json().catch(() => null)) as { data: Sent } | null)?.data;
          // The body can be cut by the kill after the status line: only a complete answer counts.
          if (data) acknowledged.push({ id: data.id, senderId: data.senderId, content: data.content });
        }
      }
    };
    // Eight lanes each way, both directions of one conversation: the sends contend for the same locks.
    const lanes = Array.from({ length: 16 }, (_, lane) =>
      lane % 2
        ? sender(admin, patient.userId, lane)
        : sender({ token: patient.token, userId: patient.userId }, admin.userId, lane),
    );
    const deadline = Date.now() + 20_000;
    while (acknowledged.length < 60 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(lanes);

    expect(acknowledged.length).toBeGreaterThanOrEqual(60);
    expect(outcomes.filter((o) => o === 'aborted').length).toBeGreaterThan(0);
    // Before the kill nothing but 201 (the send limit is 120 a minute per session; eight lanes stay under it).
    expect(outcomes.filter((o) => o !== 'aborted' && o !== 201)).toEqual([]);

    const second = await start();
    const again = await signInOverHttp(second.base, outbox, ADMIN.email, ADMIN.password);
    const thread: Sent[] = [];
    let before: number | null = null;
    for (;;) {
      const url = `${second.base}/api/message/chat/${patient.userId}?limit=200${before ? `&before=${before}` : ''}`;
      const res = await fetch(url, { headers: { authorization: `Bearer ${again.token}` } });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { data: Sent[]; cursor: { hasOlder: boolean; nextBefore: number | null } };
      thread.unshift(...page.data);
      if (!page.cursor.hasOlder || page.cursor.nextBefore === null) break;
      before = page.cursor.nextBefore;
    }
    const byId = new Map(thread.map((m) => [m.id, m]));
    expect(byId.size).toBe(thread.length);
    for (const m of acknowledged) {
      expect(byId.get(m.id), `message ${m.id} was acknowledged and is gone`).toEqual(
        expect.objectContaining({ id: m.id, senderId: m.senderId, content: m.content }),
      );
    }
    // The server takes new sends on the recovered data.
    const after = await fetch(`${second.base}/api/message/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${again.token}` },
      body: JSON.stringify({ recipientId: patient.userId, content: 'After the restart' }),
    });
    expect(after.status).toBe(201);
    expect(((await after.json()) as { data: Sent }).data.id).toBeGreaterThan(Math.max(...thread.map((m) => m.id)));
    await second.stop('SIGTERM');
  });
});

import { PGlite } from '@electric-sql/pglite';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loggedMessage } from '../errors.ts';
import { loggerOptions, prettyStream } from './logger.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}

describe('server log format', () => {
  it('is pretty in development and still redacts secrets', () => {
    const options = loggerOptions({ env: 'development', logLevel: 'info' });
    expect(options.stream).toBeDefined();
    const out = capture();
    const { stream: _terminal, ...rest } = options;
    const log = pino(rest, prettyStream(out.stream));
    log.info({ session: { token: 'secret-token' }, user: { password: 'hunter2' } }, 'signed in');
    const text = out.lines.join('');
    expect(text).toContain('signed in');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain('secret-token');
    expect(text).not.toContain('hunter2');
    // Not one JSON object per line: a person reads this.
    expect(() => JSON.parse(text.trim().split('\n')[0]!)).toThrow();
  });

  it('is one JSON object per line in production and in tests', () => {
    expect(loggerOptions({ env: 'production', logLevel: 'info' }).stream).toBeUndefined();
    expect(loggerOptions({ env: 'test', logLevel: 'info' }).stream).toBeUndefined();
    const out = capture();
    const log = pino(loggerOptions({ env: 'production', logLevel: 'info' }), out.stream);
    log.info({ body: { content: 'PHI' } }, 'message sent');
    const entry = JSON.parse(out.lines[0]!) as Record<string, unknown>;
    expect(entry.msg).toBe('message sent');
    expect(entry.body).toBe('[redacted]');
  });
});

describe('database errors in the log', () => {
  // One database for every refusal: starting a PGlite takes seconds of CPU (three made this test
  // time out at 30 s on a loaded CI machine), and a refused statement changes nothing in it.
  let db: PGlite | undefined;
  afterAll(async () => db?.close());

  /** What PGlite throws for a statement: its message quotes the value, and the error carries the query's parameters. */
  async function refusal(statement: string, params: unknown[]): Promise<unknown> {
    if (!db) {
      db = new PGlite();
      await db.exec(`CREATE TABLE people (email text UNIQUE, dob date)`);
      await db.query(`INSERT INTO people (email) VALUES ('amina.khan@example.org')`);
    }
    try {
      await db.query(statement, params);
    } catch (err) {
      return err;
    }
    throw new Error('the statement was not refused');
  }

  it('never carry the values PostgreSQL quotes, nor the parameters; they keep what names the fault', async () => {
    const duplicate = await refusal(`INSERT INTO people (email) VALUES ($1)`, ['amina.khan@example.org']);
    const date = await refusal(`INSERT INTO people (email, dob) VALUES ($1, $2)`, ['b@example.org', '0000-01-01']);
    // PostgreSQL does not escape a quote inside the value it quotes: all of it is masked still.
    const quoted = await refusal(`SELECT $1::date`, ['1"; x@example.org "2']);
    // The raw errors do hold them: the check below could not pass by finding nothing.
    expect(JSON.stringify({ ...(duplicate as object), m: (duplicate as Error).message })).toContain('amina.khan');
    expect((date as Error).message).toContain('0000-01-01');

    const out = capture();
    const log = pino(loggerOptions({ env: 'production', logLevel: 'info' }), out.stream);
    log.error({ err: duplicate }, 'unhandled error');
    log.error({ err: date }, 'unhandled error');
    log.warn({ problem: loggedMessage(date) }, 'thumbnail could not be made');
    log.error({ err: quoted }, 'unhandled error');
    const text = out.lines.join('');
    for (const value of ['amina.khan', 'b@example.org', '0000-01-01', 'x@example.org'])
      expect(text).not.toContain(value);
    const [first, second, third, fourth] = out.lines.map(
      (l) => JSON.parse(l) as Record<string, Record<string, string>>,
    );
    expect(first!.err).toMatchObject({ errorCode: '23505', constraint: 'people_email_key', table: 'people' });
    // A constraint's name is no value: it stays.
    expect(first!.err!.message).toBe('duplicate key value violates unique constraint "people_email_key"');
    expect(first!.err).not.toHaveProperty('detail');
    expect(first!.err).not.toHaveProperty('params');
    expect(second!.err).toMatchObject({ errorCode: '22008', message: 'date/time field value out of range: "…"' });
    expect(third!.problem).toBe('date/time field value out of range: "…"');
    expect(fourth!.err!.message).toBe('invalid input syntax for type date: "…"');
  });

  it('keeps other errors as pino writes them, their code too (which the redaction of codes would hide)', () => {
    const out = capture();
    const log = pino(loggerOptions({ env: 'production', logLevel: 'info' }), out.stream);
    log.error({ err: Object.assign(new Error('disk "data" is full'), { code: 'ENOSPC' }) }, 'blob write failed');
    log.error({ err: { message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' } }, 'mail delivery failed');
    log.info({ body: { code: '123456' } }, 'a verification code stays redacted');
    const [disk, mail, body] = out.lines.map((l) => JSON.parse(l) as Record<string, Record<string, unknown>>);
    expect(disk!.err).toMatchObject({ type: 'Error', message: 'disk "data" is full', errorCode: 'ENOSPC' });
    expect(disk!.err!.stack).toMatch(/^Error: disk "data" is full/);
    expect(mail!.err).toEqual({ message: 'connect ECONNREFUSED', errorCode: 'ECONNREFUSED' });
    expect(body!.body).toBe('[redacted]');
    expect(out.lines.join('')).not.toContain('123456');
  });
});

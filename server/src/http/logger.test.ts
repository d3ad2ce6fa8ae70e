import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
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

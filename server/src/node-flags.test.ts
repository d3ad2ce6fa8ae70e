import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../test/spawned-server.ts';
import { SERVER_ENV, SERVER_NODE_FLAGS } from './node-flags.ts';

/** The launch commands that cannot import SERVER_NODE_FLAGS spell it out; they must not drift. */
const GLIBC_LOADER = '/lib64/ld-linux-x86-64.so.2';
/** glibc 2.33 and later: its loader lists the tunables it would apply. */
const loaderListsTunables =
  process.platform === 'linux' &&
  existsSync(GLIBC_LOADER) &&
  spawnSync(GLIBC_LOADER, ['--list-tunables'], { encoding: 'utf8' }).status === 0;

describe('server node flags', () => {
  const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
  const flags = SERVER_NODE_FLAGS.join(' ');
  const env = Object.entries(SERVER_ENV).map(([name, value]) => `${name}=${value}`);

  it('npm start and npm run dev start the server with them', () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe(`${env.join(' ')} node ${flags} server/src/main.ts`);
    expect(scripts.dev).toContain(`${env.join(' ')} node --watch ${flags} server/src/main.ts`);
  });

  it('the end-to-end suite starts the server with them', () => {
    expect(read('e2e/playwright.config.ts')).toContain(`${env.join(' ')} node ${flags} ../server/src/main.ts`);
  });

  it("the container image's CMD starts the server with them", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    expect(JSON.parse(cmd ?? 'null')).toEqual(['node', ...SERVER_NODE_FLAGS, 'server/src/main.ts']);
    for (const setting of env) expect(read('Dockerfile')).toMatch(new RegExp(`^ENV ${setting}$`, 'm'));
  });

  // glibc ignores a tunable it does not know, silently: its dynamic loader says what it would use.
  it.runIf(loaderListsTunables)('set the allocator through a tunable this glibc applies', () => {
    const run = spawnSync(GLIBC_LOADER, ['--list-tunables'], { encoding: 'utf8', env: { ...SERVER_ENV } });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^glibc\.malloc\.arena_max: 0x2 /m);
  });

  it('are accepted by this node (it refuses to start on an unknown one)', () => {
    const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '-e', 'process.exit(0)'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});

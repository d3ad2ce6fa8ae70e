import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './spawned-server.ts';

/**
 * A throwaway Orthanc (Debian's package) for comparison tests: its own temporary directory for
 * storage and the SQLite index, HTTP and DICOM ports picked free, loopback only, no
 * authentication. `.ci/run` installs the package; tests skip with NO_ORTHANC where it is absent.
 */
export const ORTHANC_BINARY = ['/usr/sbin/Orthanc', '/usr/bin/Orthanc'].find(existsSync) ?? 'Orthanc';
export const hasOrthanc = spawnSync(ORTHANC_BINARY, ['--version'], { stdio: 'ignore' }).status === 0;
export const NO_ORTHANC = 'Orthanc is not installed: install the Debian package orthanc';
/** Where Debian's orthanc-* plugin packages put their libraries. */
export const DEBIAN_PLUGIN_DIR = '/usr/share/orthanc/plugins';

export interface OrthancOptions {
  /** Plugin libraries or folders of them, e.g. [join(DEBIAN_PLUGIN_DIR, 'libOrthancDicomWeb.so')]. */
  plugins?: string[];
  /** Merged over the defaults below (e.g. { DicomWeb: { Enable: true } }). */
  config?: Record<string, unknown>;
  /** How long to wait for GET /system (default 30 s). */
  startTimeoutMs?: number;
}

export interface RunningOrthanc {
  url: string;
  httpPort: number;
  dicomPort: number;
  dir: string;
  child: ChildProcess;
  /** Everything Orthanc printed so far. */
  output(): string;
  /** fetch() against its REST API, throwing on a non-2xx answer. */
  request(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

export async function startOrthanc(options: OrthancOptions = {}): Promise<RunningOrthanc> {
  const dir = mkdtempSync(join(tmpdir(), 'orthanc-'));
  const [httpPort, dicomPort] = [await freePort(), await freePort()];
  const config = {
    Name: 'MedShareTest',
    StorageDirectory: join(dir, 'storage'),
    IndexDirectory: join(dir, 'index'),
    HttpPort: httpPort,
    DicomPort: dicomPort,
    DicomAet: 'MEDSHARETEST',
    RemoteAccessAllowed: false,
    AuthenticationEnabled: false,
    HttpsCACertificates: '',
    Plugins: options.plugins ?? [],
    ConcurrentJobs: 1,
    ...options.config,
  };
  const configFile = join(dir, 'orthanc.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  let log = '';
  const child = spawn(ORTHANC_BINARY, [configFile], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${httpPort}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`Orthanc exited with ${child.exitCode}:\n${log}`);
    }
    const up = await fetch(`${url}/system`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Orthanc did not answer /system within the time limit:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    url,
    httpPort,
    dicomPort,
    dir,
    child,
    output: () => log,
    async request(path, init) {
      const res = await fetch(`${url}${path}`, init);
      if (!res.ok) throw new Error(`Orthanc ${init?.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
      return res;
    },
    stop,
  };
}

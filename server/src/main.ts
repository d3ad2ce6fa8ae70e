import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './config.ts';
import { buildApp } from './app.ts';
import { serveMetrics } from './http/metrics.ts';
import { isDatabaseError, loggedMessage } from './errors.ts';

/** Which React bundle web/dist holds: the build stamps it into index.html (web/build/bundle-mode.ts). */
function bundleModeOf(webDist: string): string {
  let html;
  try {
    html = readFileSync(`${webDist}/index.html`, 'utf8');
  } catch {
    return 'not built';
  }
  return /<meta name="medshare-bundle" content="(\w+)"/.exec(html)?.[1] ?? 'unknown (rebuild: npm run build -w web)';
}

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const app = await buildApp(config);
  const admin = app.ctx.seeded.generatedAdmin;
  if (admin) {
    // Printed once, on the start that created the account: the only copy of this password.
    console.log(
      `\nFirst administrator created:\n  e-mail:   ${admin.email}\n  password: ${admin.password}\nChange it after signing in.\n`,
    );
  }
  let metricsServer: Server | null = null;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    metricsServer?.close();
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  const url = await app.listen({ port: config.port, host: config.host });
  // One plain line whatever the log level: a development bundle runs every effect twice.
  const webDist = config.webDist ?? fileURLToPath(new URL('../../web/dist', import.meta.url));
  console.log(`MedShare on ${url}: server ${config.env} (NODE_ENV), web bundle ${bundleModeOf(webDist)}`);
  if (app.ctx.dimse) {
    // `docs/operations.md` › Receiving from a PACS (DIMSE); stopped by app.close() (app-context.ts).
    const dimse = await app.ctx.dimse.start();
    app.log.info({ ...dimse, aeTitle: config.dimse.aeTitle }, 'DIMSE receiver listening');
  }
  if (config.metrics.port !== null) {
    metricsServer = await serveMetrics(app.metrics, { port: config.metrics.port, host: config.metrics.host });
    const address = metricsServer.address() as AddressInfo;
    app.log.info({ host: address.address, port: address.port }, 'metrics listening');
  }
}

main().catch((err: unknown) => {
  // A database error's text, masked (errors.ts › loggedMessage); anything else as it is.
  console.error(
    'MedShare failed to start:',
    isDatabaseError(err) ? `${loggedMessage(err)} (SQLSTATE ${err.code})` : err,
  );
  process.exit(1);
});

import { ConfigError, loadConfig } from './config.ts';
import { buildApp } from './app.ts';

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
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
}

main().catch((err: unknown) => {
  console.error('MedShare failed to start:', err);
  process.exit(1);
});

import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createKeyring } from './crypto/envelope.ts';
import { createFieldEncryption } from './crypto/field-encryption.ts';
import { createPasswordHasher } from './crypto/passwords.ts';
import { type DatabaseHandle, openDatabase } from './db/db.ts';
import { migrateToLatest } from './db/migrate.ts';
import { type SeedResult, seed } from './db/seed.ts';
import { type AuthHooks, createAuthHooks } from './http/auth-hooks.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';
import { createAnalysisService } from './modules/analysis/analysis.service.ts';
import { createAnalysisProvider } from './modules/analysis/providers/select.ts';
import { createAuditRepository } from './modules/audit/audit.repository.ts';
import { createAuditService } from './modules/audit/audit.service.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { createTokenSigner } from './modules/auth/tokens.ts';
import { createDicomEngine } from './modules/dicom/dicom-engine.ts';
import { createDicomPool } from './modules/dicom/dicom-pool.ts';
import { createDicomService } from './modules/dicom/dicom.service.ts';
import { createImagesService } from './modules/images/images.service.ts';
import { createMessagesService } from './modules/messages/messages.service.ts';
import { createRolesRepository } from './modules/roles/roles.repository.ts';
import { createRolesService } from './modules/roles/roles.service.ts';
import { createSettingsRepository } from './modules/settings/settings.repository.ts';
import { createSettingsService } from './modules/settings/settings.service.ts';
import { createSharingService } from './modules/sharing/sharing.service.ts';
import { type UserDeletedHook, createUsersService } from './modules/users/users.service.ts';
import { createRealtime } from './realtime/realtime.ts';
import { createEncryptedStore } from './storage/encrypted-store.ts';
import { createStorage } from './storage/index.ts';

/** Every part of the app, wired in one place so that tests can build it with real parts. */
export async function createAppContext(config: Config, log: Logger) {
  const database: DatabaseHandle = await openDatabase(config.database);
  await migrateToLatest(database.db);
  const hasher = createPasswordHasher(config.argon2);
  const seeded: SeedResult = await seed(database.db, hasher, config.admin);
  const mailer: Mailer = createMailer(config.mail, log);
  const db = database.db;

  // The audit listing reads the display time zone lazily: settings itself audits through `audit`.
  const audit = createAuditService({
    repo: createAuditRepository(db),
    log,
    timeZone: async () => (await settings.effective()).displayTimeZone,
  });
  const settings = createSettingsService({ repo: createSettingsRepository(db), audit });
  const tokens = createTokenSigner(config.jwtSecret);
  const publicUrl = (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/$/, '');
  const onSessionsRevoked: Array<(userId: string) => void> = [];
  const auth = createAuthService({ db, hasher, mailer, audit, settings, tokens, log, publicUrl, onSessionsRevoked });
  // Modules that keep data about a user (images, shares) push a hook here; it runs inside the deleting transaction.
  const userEvents = { onUserDeleted: [] as UserDeletedHook[] };
  // Image counts for the dashboards: wire with users.useImageProviders({ imageStats, uploadsPerDay }).
  const users = createUsersService({
    db,
    audit,
    mailer,
    hasher,
    settings,
    publicUrl,
    revokeSessions: auth.revokeUserSessions,
    onUserDeleted: userEvents.onUserDeleted,
  });
  const roles = createRolesService({ repo: createRolesRepository(db) });

  const realtime = await createRealtime({ db, redisUrl: config.redisUrl, log });
  onSessionsRevoked.push((userId) => realtime.bus.publish({ type: 'sessions', userIds: [userId] }));
  const messageEncryption = await createFieldEncryption({ db, masterKey: config.masterKey, purpose: 'messages' });
  const messages = createMessagesService({
    db,
    audit,
    settings,
    encryption: messageEncryption,
    bus: realtime.bus,
    permissionsOf: auth.permissionsOf,
  });

  // Images and sharing: encrypted blobs (fs or s3), thumbnails, the orphan sweeper (hourly and at start).
  const storage = createStorage(config);
  const store = createEncryptedStore(storage, createKeyring(config.masterKey));
  const sweep = {
    graceMinutes: config.storage.sweepGraceMinutes,
    intervalMinutes: config.storage.sweepIntervalMinutes,
  };
  // DICOM: parsing, rendering and de-identification in worker threads (time-limited), never on the request path.
  const dicomEngine = createDicomEngine({ pool: createDicomPool({ log }), masterKey: config.masterKey });
  const images = createImagesService({
    db,
    store,
    hasher,
    mailer,
    audit,
    settings,
    log,
    publicUrl,
    sweep,
    dicom: dicomEngine,
  });
  const dicom = createDicomService({ db, store, engine: dicomEngine, images, audit, log, publicUrl });
  const sharing = createSharingService({
    db,
    images,
    hasher,
    mailer,
    audit,
    settings,
    log,
    publicUrl,
    deidentify: dicom.deidentifiedCopyFor,
  });
  users.useImageProviders({ imageStats: images.stats, uploadsPerDay: images.uploadsPerDay });
  userEvents.onUserDeleted.push(images.onUserDeleted);
  images.startJobs();

  // AI analysis (DESIGN §10): results sealed under their own field key; the provider ANALYSIS_PROVIDER names.
  const analysisEncryption = await createFieldEncryption({ db, masterKey: config.masterKey, purpose: 'analysis' });
  const analysis = createAnalysisService({
    db,
    images,
    dicom: dicomEngine,
    audit,
    encryption: analysisEncryption,
    provider: createAnalysisProvider(config.analysis, log),
    log,
  });

  const services = { audit, settings, auth, users, messages, roles, images, sharing, dicom, analysis };
  const hooks: AuthHooks = createAuthHooks(auth);

  return {
    config,
    log,
    database,
    mailer,
    seeded,
    services,
    hooks,
    userEvents,
    realtime,
    async close() {
      // Reset mails are sent after answering; let them finish before the database closes.
      await auth.settled();
      await images.close();
      await dicomEngine.close();
      storage.close();
      await realtime.close();
      mailer.close();
      await database.close();
    },
  };
}
export type AppContext = Awaited<ReturnType<typeof createAppContext>>;

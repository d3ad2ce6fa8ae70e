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
import { createSessionCache } from './modules/auth/session-cache.ts';
import { type AccessEnded, createContentAccessCache } from './modules/images/content-access.ts';
import { createTokenSigner } from './modules/auth/tokens.ts';
import { createDicomEngine, loadDicomKeys } from './modules/dicom/dicom-engine.ts';
import { createDicomPool } from './modules/dicom/dicom-pool.ts';
import { createDicomService } from './modules/dicom/dicom.service.ts';
import { createDimseReceiver } from './modules/dicom/dimse.ts';
import { createIngest } from './modules/dicom/ingest.ts';
import { createIngestRepository } from './modules/dicom/ingest.repository.ts';
import { createStowService } from './modules/dicom/stow.service.ts';
import { createStudyCopies } from './modules/dicom/study-copies.ts';
import { type ImagesService, createImagesService } from './modules/images/images.service.ts';
import { isLiveImage } from './modules/images/images.repository.ts';
import { createMessagesService } from './modules/messages/messages.service.ts';
import { createRolesRepository } from './modules/roles/roles.repository.ts';
import { createRolesService } from './modules/roles/roles.service.ts';
import { type SettingsService, createSettingsService } from './modules/settings/settings.service.ts';
import { createPatientShares } from './modules/sharing/patient-share.ts';
import { type SharingService, createSharingService } from './modules/sharing/sharing.service.ts';
import {
  type ExternalSharesService,
  createExternalSharesService,
} from './modules/external-shares/external-shares.service.ts';
import { createLinkCredentials } from './modules/external-shares/link-credential.ts';
import { createStudiesService } from './modules/studies/studies.service.ts';
import { userAccounts } from './modules/users/accounts.ts';
import { type UserDeletedHook, createUsersService } from './modules/users/users.service.ts';
import { type Realtime, createRealtime } from './realtime/realtime.ts';
import { createEncryptedStore } from './storage/encrypted-store.ts';
import { createStorage } from './storage/index.ts';

/**
 * How long a session read alive, or a content read's row that opened the bytes, serves later
 * requests without a database read (session-cache.ts, images/content-access.ts).
 */
const RECENT_READS_MAX_AGE_MS = 5_000;

/** Every part of the app, wired in one place so that tests can build it with real parts. */
export async function createAppContext(config: Config, log: Logger) {
  const database: DatabaseHandle = await openDatabase(config.database);
  await migrateToLatest(database.db);
  const hasher = createPasswordHasher(config.argon2);
  const seeded: SeedResult = await seed(database.db, hasher, config.admin);
  const mailer: Mailer = createMailer(config.mail, log);
  const db = database.db;

  // Services are built in dependency order. The one way back to a service built later (settings,
  // realtime, images): a callback that reads it from `built` when called, after construction.
  const later: {
    settings?: SettingsService;
    realtime?: Realtime;
    images?: ImagesService;
    sharing?: SharingService;
    externalShares?: ExternalSharesService;
  } = {};
  const built = <K extends keyof typeof later>(name: K): NonNullable<(typeof later)[K]> => {
    const service = later[name];
    if (!service) throw new Error(`${name} is used before createAppContext built it`);
    return service as NonNullable<(typeof later)[K]>;
  };

  // The audit listing shows times in the display time zone; settings itself audits through `audit`.
  const audit = createAuditService({
    repo: createAuditRepository(db),
    log,
    timeZone: async () => (await built('settings').effective()).displayTimeZone,
  });
  const settings = createSettingsService({ db, audit });
  later.settings = settings;
  const tokens = createTokenSigner(config.jwtSecret);
  const publicUrl = (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/$/, '');
  // Used only while every revocation reaches this process: one process (the memory bus; several
  // instances need REDIS_URL), or the Redis bus while it is connected (docs/security.md › Identity and sessions).
  const recentReads = {
    maxAgeMs: RECENT_READS_MAX_AGE_MS,
    maxEntries: 10_000,
    hearsRevocations: () => {
      const bus = later.realtime?.bus;
      return !!bus && (bus.kind === 'memory' || !bus.degraded);
    },
  };
  const sessionCache = createSessionCache(recentReads);
  const contentAccess = createContentAccessCache(recentReads);
  const onAccessEnded = (ended: AccessEnded) =>
    built('realtime').bus.publish({ type: 'access', userIds: [...ended.userIds], imageIds: [...ended.imageIds] });
  const auth = createAuthService({
    db,
    hasher,
    mailer,
    audit,
    settings,
    tokens,
    accounts: userAccounts,
    log,
    publicUrl,
    // Live streams of a user end at once rather than at their next check.
    onSessionsRevoked: [(userId) => built('realtime').bus.publish({ type: 'sessions', userIds: [userId] })],
    sessionCache,
  });
  // Modules that keep data about a user (images, shares) run inside the deleting transaction; tests may add hooks.
  const userEvents = {
    onUserDeleted: [
      (event, trx) => built('images').onUserDeleted(event, trx),
      (event, trx) => built('sharing').onUserDeleted(event, trx),
      (event, trx) => built('externalShares').onUserDeleted(event, trx),
    ] as UserDeletedHook[],
  };
  const users = createUsersService({
    db,
    audit,
    mailer,
    hasher,
    settings,
    publicUrl,
    revokeSessions: auth.revokeUserSessions,
    onUserDeleted: userEvents.onUserDeleted,
    // Image counts for the dashboards.
    imageStats: (actor) => built('images').stats(actor),
    uploadsPerDay: (q) => built('images').uploadsPerDay(q),
  });
  const roles = createRolesService({ repo: createRolesRepository(db) });

  const realtime = await createRealtime({ db, redisUrl: config.redisUrl, log });
  later.realtime = realtime;
  // Revocations here (synchronously) and on other instances drop the sessions they name.
  // Ended access drops the content reads it names; a user's revoked sessions drop theirs too.
  realtime.bus.onEvent((event) => {
    if (event.type === 'sessions') {
      sessionCache.forget(event.userIds);
      contentAccess.forget({ userIds: event.userIds, imageIds: [] });
    } else if (event.type === 'access') contentAccess.forget(event);
  });
  realtime.bus.onResync(() => {
    sessionCache.forget(null);
    contentAccess.forget(null);
  });
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
  const dicomEngine = createDicomEngine({
    pool: createDicomPool({ log, ...(config.dicomWorkers ? { size: config.dicomWorkers } : {}) }),
    keys: await loadDicomKeys(db, config.masterKey),
  });
  const images = createImagesService({
    db,
    store,
    hasher,
    audit,
    settings,
    log,
    sweep,
    dicom: dicomEngine,
    // The patient's own share of an upload: the sharing module's rules, run in the upload's statement.
    patientShares: createPatientShares({ db, mailer, settings, publicUrl }),
    contentAccess,
    onAccessEnded,
  });
  const dicom = createDicomService({ db, store, engine: dicomEngine, images, audit, log, publicUrl });
  // STOW-RS and the DIMSE receiver hand each instance to the upload pipeline (dicom/ingest.ts).
  const ingestRepo = createIngestRepository(db);
  const ingest = createIngest({ images, log });
  const stow = createStowService({ ingest, settings, repo: ingestRepo, publicUrl, log });
  // The DIMSE receiver (C-ECHO, C-STORE SCP) when DIMSE_PORT is set; main.ts starts it, close() stops it.
  const dimse =
    config.dimse.port === null
      ? null
      : createDimseReceiver({
          config: config.dimse,
          ingest,
          repo: ingestRepo,
          patientKeyOf: dicomEngine.patientKeyOf,
          permissionsOf: auth.permissionsOf,
          audit,
          log,
        });
  const sharing = createSharingService({
    db,
    images,
    hasher,
    mailer,
    audit,
    settings,
    log,
    publicUrl,
    onAccessEnded,
    deidentify: dicom.deidentifiedCopyFor,
    // A de-identified study share: fresh copies of every image, UIDs mapped under the share's id.
    studyCopies: createStudyCopies({ store, engine: dicomEngine, images, isLive: (id) => isLiveImage(db, id), log }),
  });
  later.images = images;
  later.sharing = sharing;
  // Studies: the DICOM images of one Study Instance UID the caller may see; shared whole through sharing.
  const studies = createStudiesService({ db, store, audit, sharing, log });
  // Links for people without an account (`docs/architecture.md` › Sharing with someone without an account).
  const externalShares = createExternalSharesService({
    db,
    images,
    hasher,
    mailer,
    audit,
    settings,
    credentials: createLinkCredentials(config.jwtSecret),
    log,
    publicUrl,
    deidentify: dicom.deidentifiedCopyFor,
  });
  later.externalShares = externalShares;
  images.startJobs();

  // AI analysis (`docs/architecture.md` › AI analysis): results sealed under their own field key; the
  // provider ANALYSIS_PROVIDER names.
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

  const services = {
    audit,
    settings,
    auth,
    users,
    messages,
    roles,
    images,
    sharing,
    studies,
    externalShares,
    dicom,
    stow,
    analysis,
  };
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
    /** Tests that change a session in the database behind the app's back forget it here too. */
    sessionCache,
    /** The same for content reads' rows (images/content-access.ts). */
    contentAccess,
    /** The services' one password hasher: tests hold a code check here to put a request inside another. */
    hasher,
    /** The DICOM engine: tests hold a de-identification here, the same way. */
    dicomEngine,
    /** The encrypted blob store the services read and write: tests put a deletion inside a read here. */
    store,
    dimse,
    async close() {
      // Associations first: the instances they are storing need the database and the store.
      await dimse?.stop();
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

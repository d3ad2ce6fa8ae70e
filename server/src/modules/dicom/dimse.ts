import type { PermissionName, RoleName } from '@medshare/contracts';
import type * as DimseTypes from 'dcmjs-dimse';
import { createRequire } from 'node:module';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { AppError, badRequest, loggedMessage } from '../../errors.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { DicomHead } from './dicom-head.ts';
import { isSupportedSyntax, part10Header } from './dicom-core.ts';
import { type Ingest, type Ingested, failureReasonOf } from './ingest.ts';
import type { IngestRepository } from './ingest.repository.ts';

type DimseModule = typeof DimseTypes;
/**
 * dcmjs-dimse, loaded by the first receiver made: a server without DIMSE_PORT never loads it (9.6 MB
 * of heap that every full collection would mark: `bench/RESULTS.md` › What the main heap holds).
 * It ships one UMD bundle: Node's ESM loader cannot see its named exports, require can.
 */
let loaded: DimseModule | null = null;
function loadDimse(): DimseModule {
  if (!loaded) {
    loaded = createRequire(import.meta.url)('dcmjs-dimse') as DimseModule;
    // Its own console logging is off: the receiver logs refusals and errors through pino.
    loaded.log.setLevel('silent');
  }
  return loaded;
}
type Association = InstanceType<DimseModule['association']['Association']>;
type PresentationContext = InstanceType<DimseModule['association']['PresentationContext']>;
type CEchoRequest = InstanceType<DimseModule['requests']['CEchoRequest']>;
type CStoreRequest = InstanceType<DimseModule['requests']['CStoreRequest']>;
type CEchoResponse = InstanceType<DimseModule['responses']['CEchoResponse']>;
type CStoreResponse = InstanceType<DimseModule['responses']['CStoreResponse']>;

/** At most this many refused associations are audited a minute (the rest are logged): a port scan must not flood the trail. */
const REFUSAL_ROWS_PER_MINUTE = 60;
/** How long a stop waits for instances being stored before it closes their associations. */
const STOP_GRACE_MS = 5_000;

export interface DimseDeps {
  config: Config['dimse'];
  ingest: Ingest;
  repo: IngestRepository;
  /** The HMAC of a DICOM Patient ID (dicom-engine.ts), as stored in images.dicom_patient_key. */
  patientKeyOf: (patientId: string | null) => string | null;
  permissionsOf: (role: RoleName) => Promise<ReadonlySet<PermissionName>>;
  audit: AuditService;
  log: Logger;
}

/**
 * The DIMSE receiver (`docs/security.md` › DICOM networking: STOW-RS and DIMSE): a C-ECHO and
 * C-STORE SCP on DIMSE_PORT (dcmjs-dimse). An association is accepted only from a calling AE title
 * of DIMSE_ALLOWED_AES, to our AE title, and stores as the provider that AE is mapped to. Each
 * instance streams, as it arrives, into the same pipeline as an upload (`ingest.ts`), as a Part 10
 * file: a File Meta group made from the C-STORE request, then the data set's bytes as they came.
 */
export function createDimseReceiver(deps: DimseDeps) {
  const { config, ingest, repo, patientKeyOf, permissionsOf, audit, log } = deps;
  const { Dataset, Scp, Server, constants, responses } = loadDimse();
  const { PresentationContextResult, RejectResult, RejectSource, RejectReason, SopClass, Status, StorageClass } =
    constants;
  /** Storage SOP classes dcmjs-dimse knows, and any other of the Storage Service Class's UID root. */
  const storageClasses = new Set<string>(Object.values(StorageClass));
  const isStorageClass = (uid: string) => storageClasses.has(uid) || uid.startsWith('1.2.840.10008.5.1.4.1.1.');
  const ourAe = config.aeTitle.trim();
  const inFlight = new Set<Promise<unknown>>();
  let refusals = { minute: 0, count: 0 };
  let server: InstanceType<typeof Server> | null = null;

  const auditRefusal = (event: { userId: string | null; ip: string | null; reason: string }) => {
    const minute = Math.floor(Date.now() / 60_000);
    if (refusals.minute !== minute) refusals = { minute, count: 0 };
    if (++refusals.count > REFUSAL_ROWS_PER_MINUTE) return;
    void audit.recordQuietly({ ...event, action: 'dimse.association', table: null, recordId: null, status: 'failure' });
  };

  /** `docs/product.md` › Receiving from a PACS: the one patient this provider stored images of under the same patient key, else none. */
  async function patientFor(providerId: string, head: DicomHead): Promise<string | null> {
    const key = patientKeyOf(head.patientId);
    if (!key) return null;
    const patients = await repo.patientsByKey(providerId, key);
    return patients.length === 1 ? patients[0]! : null;
  }

  /** Who an association stores as, or why it is refused. */
  async function admit(association: Association, peer: string | null) {
    const calling = association.getCallingAeTitle().trim();
    const called = association.getCalledAeTitle().trim();
    if (called !== ourAe) return { refused: RejectReason.CalledAeNotRecognized, why: 'called AE is not ours', calling };
    const entry = config.allowed.find((a) => a.ae === calling);
    if (!entry) return { refused: RejectReason.CallingAeNotRecognized, why: 'calling AE not allowed', calling };
    const account = await repo.accountByEmail(entry.provider);
    const permissions = account ? await permissionsOf(account.role) : new Set<PermissionName>();
    if (!account || !account.active || !account.approved || !permissions.has('image:upload')) {
      log.error({ ae: calling }, 'DIMSE_ALLOWED_AES maps this AE title to an account that may not upload');
      return { refused: RejectReason.NoReasonGiven, why: 'mapped account may not upload', calling };
    }
    const actor: Actor = {
      userId: account.id,
      sessionId: `dimse:${calling}`,
      role: account.role,
      permissions,
      ip: peer,
    };
    return { actor, calling };
  }

  /** PS3.4 Table B.2-1 status of an instance's outcome; a duplicate is stored (`docs/decisions.md` › DICOM networking: STOW-RS and DIMSE). */
  const statusOf = (outcome: Ingested) => (outcome.stored ? Status.Success : failureReasonOf(outcome.error));

  class Receiver extends Scp {
    private actor: Actor | null = null;
    /** Aborted before it was accepted: the pending decision sends nothing. */
    private aborted = false;
    private calling = '';
    private readonly peer: string | null;
    private readonly pending = new WeakMap<CStoreRequest, Promise<Ingested>>();
    /** The instance being received: failed if the association ends before its last byte. */
    private current: PassThrough | null = null;

    private readonly socket: Socket;

    constructor(socket: Socket, opts?: ConstructorParameters<typeof Scp>[1]) {
      super(socket, opts);
      this.socket = socket;
      this.peer = socket.remoteAddress ?? null;
      socket.on('close', () => this.cut());
    }

    private cut() {
      if (this.current && !this.current.writableEnded)
        this.current.destroy(badRequest('The association ended before the instance was complete.'));
      this.current = null;
    }

    override associationRequested(association: Association): void {
      void this.decide(association);
    }

    private async decide(association: Association) {
      const admitted = await admit(association, this.peer).catch((err: unknown) => {
        log.error({ err: { message: loggedMessage(err) } }, 'DIMSE association check failed');
        return { refused: RejectReason.NoReasonGiven, why: 'check failed', calling: '' };
      });
      if (this.aborted) return;
      const who = `calling_ae=${admitted.calling} called_ae=${association.getCalledAeTitle().trim()}`;
      if ('refused' in admitted) {
        log.warn({ peer: this.peer, reason: admitted.why }, 'DIMSE association refused');
        auditRefusal({ userId: null, ip: this.peer, reason: `${who} refused: ${admitted.why}` });
        this.sendAssociationReject(RejectResult.Permanent, RejectSource.ServiceUser, admitted.refused);
        return;
      }
      this.actor = admitted.actor;
      this.calling = admitted.calling;
      for (const { id } of association.getPresentationContexts())
        this.negotiate(association.getPresentationContext(id));
      void audit.recordQuietly({
        userId: admitted.actor.userId,
        action: 'dimse.association',
        table: null,
        recordId: null,
        ip: this.peer,
        reason: who,
      });
      this.sendAssociationAccept();
    }

    /** Verification, and storage in the first transfer syntax the sender proposes that MedShare can read. */
    private negotiate(context: PresentationContext) {
      const abstract = context.getAbstractSyntaxUid();
      const proposed = context.getTransferSyntaxUids();
      if (abstract !== SopClass.Verification && !isStorageClass(abstract))
        return context.setResult(PresentationContextResult.RejectAbstractSyntaxNotSupported);
      const chosen = proposed.find(isSupportedSyntax);
      if (!chosen) return context.setResult(PresentationContextResult.RejectTransferSyntaxesNotSupported);
      context.setResult(PresentationContextResult.Accept, chosen);
    }

    override cEchoRequest(request: CEchoRequest, callback: (response: CEchoResponse) => void): void {
      const response = responses.CEchoResponse.fromRequest(request);
      response.setStatus(Status.Success);
      callback(response);
    }

    /** The data set's bytes as they arrive, behind a File Meta group, straight into the upload pipeline. */
    override createStoreWritableStream(context: PresentationContext, request: CStoreRequest): Writable {
      // Data before the association was accepted (dcmjs-dimse hands on P-DATA in any state): a
      // protocol violation by a peer not yet admitted, perhaps never to be. The association is
      // aborted and nothing of the data is kept, not even buffered.
      if (!this.actor) {
        if (!this.aborted) {
          this.aborted = true;
          log.warn({ peer: this.peer }, 'DIMSE data before the association was accepted: aborted');
          this.sendAbort();
          // dcmjs-dimse leaves the connection open after its A-ABORT: closed once that is sent.
          this.socket.end();
        }
        return new Writable({ write: (_chunk, _encoding, done) => done() });
      }
      const sink = new PassThrough();
      sink.write(
        part10Header(
          request.getAffectedSopClassUid(),
          request.getAffectedSopInstanceUid(),
          context.getAcceptedTransferSyntaxUid() ?? '',
        ),
      );
      this.current = sink;
      const actor = this.actor;
      const outcome = ingest(
        actor,
        { stream: sink, mediaType: 'application/dicom' },
        { ip: this.peer, patientId: (head) => patientFor(actor.userId, head) },
      );
      this.pending.set(request, outcome);
      inFlight.add(outcome);
      void outcome.finally(() => inFlight.delete(outcome));
      return sink;
    }

    /** The instance went to the store as it came: the request carries an empty data set. */
    override createDatasetFromStoreWritableStream(
      _writable: Writable,
      _context: PresentationContext,
      callback: (dataset: InstanceType<typeof Dataset>) => void,
    ): void {
      this.current = null;
      callback(new Dataset());
    }

    override cStoreRequest(request: CStoreRequest, callback: (response: CStoreResponse) => void): void {
      void this.answer(request, callback);
    }

    private async answer(request: CStoreRequest, callback: (response: CStoreResponse) => void) {
      const response = responses.CStoreResponse.fromRequest(request);
      const outcome = this.pending.get(request);
      if (!outcome || !this.actor) {
        response.setStatus(Status.ProcessingFailure);
        return callback(response);
      }
      const result = await outcome;
      const status = statusOf(result);
      response.setStatus(status);
      const hex = `0x${status.toString(16).padStart(4, '0').toUpperCase()}`;
      if (!result.stored) {
        const message = result.error instanceof AppError ? result.error.message : 'The instance could not be stored.';
        response.setErrorComment(message.slice(0, 64));
      }
      await audit.recordQuietly({
        userId: this.actor.userId,
        action: 'dimse.store',
        table: 'images',
        recordId: result.stored ? result.image.id : null,
        ip: this.peer,
        status: result.stored ? 'success' : 'failure',
        reason: `calling_ae=${this.calling} status=${hex}${
          result.stored
            ? result.duplicate
              ? ' duplicate'
              : ''
            : ` ${result.error instanceof AppError ? result.error.code : 'error'}`
        }`,
      });
      callback(response);
    }

    override associationReleaseRequested(): void {
      this.sendAssociationReleaseResponse();
    }

    override abort(): void {
      this.cut();
    }
  }

  return {
    /** Starts listening on DIMSE_PORT (all interfaces: dcmjs-dimse takes no host); resolves with the port. */
    start(): Promise<{ port: number; tls: boolean }> {
      const scp = new Server(Receiver);
      server = scp;
      return new Promise((resolve, reject) => {
        scp.on('listening', () => {
          const inner = (scp as unknown as { server?: NetServer }).server;
          const address = inner?.address() as AddressInfo | null;
          resolve({ port: address?.port ?? config.port!, tls: config.tls !== null });
        });
        scp.on('networkError', (err: Error) => {
          log.warn({ err: { message: loggedMessage(err) } }, 'DIMSE network error');
          reject(err);
        });
        scp.listen(config.port!, {
          // Our own limits: an association that says nothing for a minute is closed.
          associationTimeout: 60_000,
          pduTimeout: 60_000,
          ...(config.tls
            ? {
                securityOptions: {
                  key: config.tls.key,
                  cert: config.tls.cert,
                  ...(config.tls.ca ? { ca: config.tls.ca, requestCert: true, rejectUnauthorized: true } : {}),
                  minVersion: 'TLSv1.2',
                },
              }
            : {}),
        });
      });
    },

    /** Stops accepting, lets the instances being stored finish (a few seconds at most), then closes every association. */
    async stop(): Promise<void> {
      const scp = server;
      server = null;
      if (!scp) return;
      (scp as unknown as { server?: NetServer }).server?.close();
      const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
      await Promise.race([Promise.allSettled([...inFlight]), grace]);
      scp.close();
    },
  };
}
export type DimseReceiver = ReturnType<typeof createDimseReceiver>;

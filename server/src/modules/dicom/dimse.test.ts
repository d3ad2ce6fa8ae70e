import dcmjs from 'dcmjs';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser, uniqueName } from '../../../test/harness.ts';
import { freePort } from '../../../test/spawned-server.ts';
import { startTcpProxy } from '../../../test/tcp-proxy.ts';
import { bytesOf, fixture, uploadFile } from '../images/images.test-helpers.ts';
import { type GeneratedStudy, generateStudy } from '../studies/studies.test-helpers.ts';
import { NO_DCMTK, hasDcmtk } from './dicom-test-helpers.ts';

/**
 * The DIMSE receiver against dcmtk's echoscu and storescu (real DICOM peers, started here on our
 * own port): C-ECHO, C-STORE of a multi-series study into the upload pipeline, the AE title
 * allow-list, the patient rule, a second send, and an instance over the size limit.
 */
const run = promisify(execFile);
// CI installs dcmtk: there the test must run, not skip.
if (process.env.CI && !hasDcmtk) throw new Error(NO_DCMTK);

let t: TestApp;
let doc: SignedIn;
let patient: SignedIn;
let port = 0;
const dir = mkdtempSync(join(tmpdir(), 'dimse-'));
const db = () => t.app.ctx.database.db;

/** Runs a dcmtk tool without blocking the event loop (the receiver runs in this process). */
async function dcmtk(tool: string, args: string[]) {
  try {
    const { stdout, stderr } = await run(tool, args, { timeout: 120_000 });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

function writeStudy(study: GeneratedStudy, name: string): string[] {
  return study.series.flatMap((s) =>
    s.instances.map((i) => {
      const path = join(dir, `${name}-${i.file.name}`);
      writeFileSync(path, i.file.data);
      return path;
    }),
  );
}

async function rowsOf(sops: string[]) {
  return db()
    .selectFrom('images')
    .select(['id', 'patient_id', 'dicom_sop_instance_uid', 'caption', 'uploader_id'])
    .where('dicom_sop_instance_uid', 'in', sops)
    .where('deleted_at', 'is', null)
    .execute();
}

const storescu = (files: string[], aet = 'STORESCU', extra: string[] = []) =>
  dcmtk('storescu', ['-aet', aet, '-aec', 'MEDSHARE', ...extra, '127.0.0.1', String(port), ...files]);

/** The data set of a Part 10 file: what follows its File Meta group. */
function dataSetOf(file: Buffer): Buffer {
  const metaLength = file.readUInt32LE(132 + 8);
  return file.subarray(132 + 12 + metaLength);
}

describe.skipIf(!hasDcmtk)(`DIMSE receiver (${hasDcmtk ? 'dcmtk found' : NO_DCMTK})`, () => {
  beforeAll(async () => {
    port = await freePort();
    t = await createTestApp((c) => {
      c.dimse = {
        port,
        aeTitle: 'MEDSHARE',
        allowed: [{ ae: 'PATIENTPACS', provider: 'nobody-here@example.org' }],
        tls: null,
      };
    });
    doc = await newUser(t, 'healthProvider');
    patient = await newUser(t, 'patient');
    // The allow-list is read at each association: the provider's e-mail is known only now.
    t.config.dimse.allowed.push({ ae: 'STORESCU', provider: doc.user.email });
    await t.app.ctx.dimse!.start();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers C-ECHO from an allowed AE title', async () => {
    const echo = await dcmtk('echoscu', ['-aet', 'STORESCU', '-aec', 'MEDSHARE', '127.0.0.1', String(port)]);
    expect(echo.code, echo.output).toBe(0);
  });

  it('refuses an association from an AE title not in DIMSE_ALLOWED_AES, to another called AE title, or mapped to no provider (A-ASSOCIATE-RJ), and audits it', async () => {
    const stranger = await dcmtk('echoscu', ['-aet', 'INTRUDER', '-aec', 'MEDSHARE', '127.0.0.1', String(port)]);
    expect(stranger.code).not.toBe(0);
    expect(stranger.output).toMatch(/Calling AE Title Not Recognized/i);
    const wrongCalled = await dcmtk('echoscu', ['-aet', 'STORESCU', '-aec', 'SOMEONE', '127.0.0.1', String(port)]);
    expect(wrongCalled.output).toMatch(/Called AE Title Not Recognized/i);
    const unmapped = await dcmtk('echoscu', ['-aet', 'PATIENTPACS', '-aec', 'MEDSHARE', '127.0.0.1', String(port)]);
    expect(unmapped.code).not.toBe(0);
    // The refusal is audited beside the A-ASSOCIATE-RJ, not before it: echoscu may exit first.
    const refusals = async () =>
      (
        await db()
          .selectFrom('audit_logs')
          .select('reason')
          .where('action_type', '=', 'dimse.association')
          .where('status', '=', 'failure')
          .execute()
      ).map((r) => r.reason);
    await expect
      .poll(refusals, { timeout: 5_000 })
      .toEqual(
        expect.arrayContaining([
          expect.stringContaining('calling_ae=INTRUDER'),
          expect.stringContaining('called_ae=SOMEONE'),
          expect.stringContaining('calling_ae=PATIENTPACS'),
        ]),
      );
    // Nothing got in through a refused association.
    const refused = generateStudy([1]);
    const store = await storescu(writeStudy(refused, 'refused'), 'INTRUDER');
    expect(store.code).not.toBe(0);
    expect(await rowsOf([refused.series[0]!.instances[0]!.sop])).toEqual([]);
  });

  it('stores a multi-series study sent by storescu once each, as the mapped provider, byte-identical, audited with the calling AE; a second send stores nothing twice', async () => {
    const study = generateStudy([3, 4, 2], { extra: ['(0010,0020)=DIMSE-NOBODY'] });
    const files = writeStudy(study, 'first');
    const sops = study.series.flatMap((s) => s.instances.map((i) => i.sop));
    const started = performance.now();
    const sent = await storescu(files);
    const seconds = (performance.now() - started) / 1000;
    expect(sent.code, sent.output).toBe(0);
    const rows = await rowsOf(sops);
    expect(rows).toHaveLength(9);
    expect(new Set(rows.map((r) => r.uploader_id))).toEqual(new Set([doc.user.id]));
    // No image of this Patient ID for this provider before: stored without a patient.
    expect(new Set(rows.map((r) => r.patient_id))).toEqual(new Set([null]));
    expect(new Set(rows.map((r) => r.caption))).toEqual(new Set(['CT study']));
    // The stored file is a File Meta group made from the C-STORE request and the data set as sent.
    const first = study.series[0]!.instances[0]!;
    const back = await t.request({
      method: 'GET',
      url: `/api/dicomweb/studies/${study.studyUid}/series/${study.series[0]!.uid}/instances/${first.sop}`,
      token: doc.token,
      headers: { accept: 'multipart/related; type="application/dicom"; transfer-syntax=*' },
    });
    expect(back.statusCode).toBe(200);
    expect(bytesOf(back).includes(dataSetOf(first.file.data)), 'data set byte-identical').toBe(true);
    const audits = await db()
      .selectFrom('audit_logs')
      .select(['reason', 'user_id', 'ip_address', 'record_id'])
      .where('action_type', '=', 'dimse.store')
      .where(
        'record_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    expect(audits).toHaveLength(9);
    expect(audits.every((a) => a.user_id === doc.user.id && a.reason === 'calling_ae=STORESCU status=0x0000')).toBe(
      true,
    );
    expect(audits[0]!.ip_address).toMatch(/127\.0\.0\.1/);
    console.warn(`storescu of ${files.length} instances into the DIMSE receiver: ${seconds.toFixed(2)} s`);

    const again = await storescu(files);
    expect(again.code, again.output).toBe(0);
    expect(await rowsOf(sops)).toHaveLength(9);
    const duplicates = await db()
      .selectFrom('audit_logs')
      .select('reason')
      .where('action_type', '=', 'dimse.store')
      .where('reason', '=', 'calling_ae=STORESCU status=0x0000 duplicate')
      .execute();
    expect(duplicates).toHaveLength(9);
  }, 120_000);

  it('stores an instance for the patient this provider already has images of under the same Patient ID', async () => {
    const patientId = `PID-${uniqueName('p')}`;
    const earlier = generateStudy([1], { extra: [`(0010,0020)=${patientId}`] });
    const upload = await uploadFile(t, doc.token, earlier.series[0]!.instances[0]!.file, {
      caption: 'Earlier CT',
      patientId: patient.user.id,
    });
    expect(upload.statusCode, upload.body).toBe(201);
    const study = generateStudy([2], { extra: [`(0010,0020)=${patientId}`] });
    const sent = await storescu(writeStudy(study, 'mapped'));
    expect(sent.code, sent.output).toBe(0);
    const rows = await rowsOf(study.series[0]!.instances.map((i) => i.sop));
    expect(rows.map((r) => r.patient_id)).toEqual([patient.user.id, patient.user.id]);
  }, 60_000);

  it('an association cut mid-instance (a proxy drops it) keeps the instances before it, stores nothing of the cut one, and the receiver serves on', async () => {
    const study = generateStudy([3], { source: 'dicom/ct_implicit_le_16bit_signed.dcm' });
    const instances = study.series[0]!.instances;
    const files = writeStudy(study, 'cut');
    const proxy = await startTcpProxy({ host: '127.0.0.1', port });
    try {
      const sizes = instances.map((i) => dataSetOf(i.file.data).length);
      // Association, two whole instances with their commands, then half of the third.
      const cut = proxy.cutAfter(sizes[0]! + sizes[1]! + Math.floor(sizes[2]! / 2) + 4_000);
      const sent = await dcmtk('storescu', [
        '-aet',
        'STORESCU',
        '-aec',
        'MEDSHARE',
        '127.0.0.1',
        String(proxy.port),
        ...files,
      ]);
      await cut;
      expect(sent.code).not.toBe(0);
      await t.app.ctx.services.images.idle();
      const deadline = Date.now() + 5_000;
      while ((await rowsOf(instances.map((i) => i.sop))).length < 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const rows = await rowsOf(instances.map((i) => i.sop));
      // storescu sends in file order: the files are written in reverse Instance Number order.
      const storedSops = rows.map((r) => r.dicom_sop_instance_uid).sort();
      expect(storedSops).toEqual(
        instances
          .slice(0, 2)
          .map((i) => i.sop)
          .sort(),
      );
      const ids = new Set(
        (await db().selectFrom('images').select('storage_key').where('deleted_at', 'is', null).execute()).map(
          (r) => r.storage_key,
        ),
      );
      const blobs = join(t.dataDir, 'blobs');
      for (const d of readdirSync(blobs)) {
        if (d === '.tmp') expect(readdirSync(join(blobs, d))).toEqual([]);
        else
          for (const name of readdirSync(join(blobs, d)))
            expect(ids.has(name.replace(/-thumb-[0-9a-f]{8}$/, '')), name).toBe(true);
      }
    } finally {
      await proxy.close();
    }
    const echo = await dcmtk('echoscu', ['-aet', 'STORESCU', '-aec', 'MEDSHARE', '127.0.0.1', String(port)]);
    expect(echo.code, echo.output).toBe(0);
  }, 60_000);

  it('a peer sending an instance before its association is accepted stores nothing, and the receiver serves on', async () => {
    // Raw PDUs (PS3.8 §9.3) in one write: A-ASSOCIATE-RQ, then at once a P-DATA-TF with a C-STORE-RQ
    // and its data set, while the receiver is still checking the calling AE title.
    const study = generateStudy([1]);
    const instance = study.series[0]!.instances[0]!;
    const sent = Buffer.concat([
      associateRequest('STORESCU', 'MEDSHARE', SOP_CLASS_CT, '1.2.840.10008.1.2.1'),
      pData(1, 0x03, cStoreCommand(SOP_CLASS_CT, instance.sop)),
      pData(1, 0x02, dataSetOf(instance.file.data)),
    ]);
    const socket = connect({ host: '127.0.0.1', port });
    const answered: Buffer[] = [];
    socket.on('data', (d: Buffer) => answered.push(d));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(sent);
    // Aborted (A-ABORT, PDU type 7) and closed by the receiver, with no A-ASSOCIATE-AC before it.
    await closed;
    expect(Buffer.concat(answered).subarray(0, 1)).toEqual(Buffer.from([0x07]));
    expect(await rowsOf([instance.sop])).toEqual([]);
    // The receiver (and the process) still serve.
    const echo = await dcmtk('echoscu', ['-aet', 'STORESCU', '-aec', 'MEDSHARE', '127.0.0.1', String(port)]);
    expect(echo.code, echo.output).toBe(0);
    expect((await t.request({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });

  it('answers an instance over max_upload_mb with 0xA700 (refused: out of resources) and stores nothing of it', async () => {
    await db().updateTable('app_settings').set({ value: '1' }).where('name', '=', 'max_upload_mb').execute();
    t.app.ctx.services.settings.invalidate();
    try {
      const data = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm').data;
      const message = dcmjs.data.DicomMessage.readFile(
        data.buffer.slice(data.byteOffset, data.byteOffset + data.length) as ArrayBuffer,
      );
      const sop = `2.25.${Date.now()}${Math.floor(Math.random() * 1e6)}`;
      message.dict['00080018'] = { vr: 'UI', Value: [sop] };
      message.meta['00020003'] = { vr: 'UI', Value: [sop] };
      message.dict['00280010'] = { vr: 'US', Value: [1024] };
      message.dict['00280011'] = { vr: 'US', Value: [1024] };
      message.dict['7FE00010'] = { vr: 'OW', Value: [new ArrayBuffer(1024 * 1024 * 2)] };
      const path = join(dir, 'big.dcm');
      writeFileSync(path, Buffer.from(message.write()));
      const sent = await storescu([path], 'STORESCU', ['-v']);
      expect(
        sent.output
          .split('\n')
          .filter((l) => !l.startsWith('XMIT'))
          .join('\n'),
      ).toMatch(/Refused: OutOfResources/);
      expect(await rowsOf([sop])).toHaveLength(0);
      const audit = await db()
        .selectFrom('audit_logs')
        .select(['reason', 'status'])
        .where('action_type', '=', 'dimse.store')
        .where('status', '=', 'failure')
        .execute();
      expect(audit.map((a) => a.reason)).toContain('calling_ae=STORESCU status=0xA700 too_large');
    } finally {
      await db().updateTable('app_settings').set({ value: '10' }).where('name', '=', 'max_upload_mb').execute();
      t.app.ctx.services.settings.invalidate();
    }
  }, 60_000);
});

describe.skipIf(!hasDcmtk)('DIMSE receiver over TLS (DIMSE_TLS_KEY, DIMSE_TLS_CERT)', () => {
  let tls: TestApp;
  let tlsPort = 0;
  const certs = mkdtempSync(join(tmpdir(), 'dimse-tls-'));
  beforeAll(async () => {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(certs, 'key.pem'),
      '-out',
      join(certs, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
    ]);
    tlsPort = await freePort();
    tls = await createTestApp((c) => {
      c.dimse = {
        port: tlsPort,
        aeTitle: 'MEDSHARE',
        allowed: [{ ae: 'TLSSCU', provider: 'nobody@example.org' }],
        tls: { key: readFileSync(join(certs, 'key.pem')), cert: readFileSync(join(certs, 'cert.pem')), ca: null },
      };
    });
    const provider = await newUser(tls, 'healthProvider');
    tls.config.dimse.allowed[0]!.provider = provider.user.email;
    await tls.app.ctx.dimse!.start();
  }, 60_000);
  afterAll(async () => {
    await tls?.close();
    rmSync(certs, { recursive: true, force: true });
  });

  it('answers C-ECHO over TLS (the server certificate trusted by the client), and nothing in the clear', async () => {
    const common = ['-aet', 'TLSSCU', '-aec', 'MEDSHARE', '127.0.0.1', String(tlsPort)];
    const secure = await dcmtk('echoscu', ['+tla', '+cf', join(certs, 'cert.pem'), ...common]);
    expect(secure.code, secure.output).toBe(0);
    const clear = await dcmtk('echoscu', common);
    expect(clear.code).not.toBe(0);
  }, 60_000);
});

const SOP_CLASS_CT = '1.2.840.10008.5.1.4.1.1.2';

/** An even-length UID value, padded with NUL (PS3.5 §9.1). */
const uidBytes = (uid: string) => Buffer.from(uid.length % 2 ? `${uid}\0` : uid, 'latin1');
const aeTitle = (ae: string) => Buffer.from(ae.padEnd(16, ' '), 'latin1');

/** A PDU item: type, reserved byte, 2-byte length, value. */
function item(type: number, value: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt8(type, 0);
  head.writeUInt16BE(value.length, 2);
  return Buffer.concat([head, value]);
}

function associateRequest(calling: string, called: string, abstract: string, transfer: string): Buffer {
  const maxLength = Buffer.alloc(4);
  maxLength.writeUInt32BE(16_384);
  const body = Buffer.concat([
    Buffer.from([0x00, 0x01, 0x00, 0x00]),
    aeTitle(called),
    aeTitle(calling),
    Buffer.alloc(32),
    item(0x10, Buffer.from('1.2.840.10008.3.1.1.1', 'latin1')),
    item(
      0x20,
      Buffer.concat([Buffer.from([1, 0, 0, 0]), item(0x30, uidBytes(abstract)), item(0x40, uidBytes(transfer))]),
    ),
    item(0x50, item(0x51, maxLength)),
  ]);
  const head = Buffer.alloc(6);
  head.writeUInt8(0x01, 0);
  head.writeUInt32BE(body.length, 2);
  return Buffer.concat([head, body]);
}

/** One P-DATA-TF PDU holding one PDV: `control` 0x03 a whole command, 0x02 a whole data set. */
function pData(contextId: number, control: number, fragment: Buffer): Buffer {
  const pdv = Buffer.alloc(6);
  pdv.writeUInt32BE(fragment.length + 2, 0);
  pdv.writeUInt8(contextId, 4);
  pdv.writeUInt8(control, 5);
  const head = Buffer.alloc(6);
  head.writeUInt8(0x04, 0);
  head.writeUInt32BE(pdv.length + fragment.length, 2);
  return Buffer.concat([head, pdv, fragment]);
}

/** A C-STORE-RQ command set in Implicit VR Little Endian (PS3.7 §9.3.1.1). */
function cStoreCommand(sopClass: string, sopInstance: string): Buffer {
  const element = (tag: number, value: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt16LE(0x0000, 0);
    head.writeUInt16LE(tag, 2);
    head.writeUInt32LE(value.length, 4);
    return Buffer.concat([head, value]);
  };
  const us = (n: number) => Buffer.from([n & 0xff, n >> 8]);
  const elements = Buffer.concat([
    element(0x0002, uidBytes(sopClass)),
    element(0x0100, us(0x0001)),
    element(0x0110, us(1)),
    element(0x0700, us(0)),
    element(0x0800, us(0x0000)),
    element(0x1000, uidBytes(sopInstance)),
  ]);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(elements.length);
  return Buffer.concat([element(0x0000, length), elements]);
}

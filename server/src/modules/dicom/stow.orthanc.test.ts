import dicomParser from 'dicom-parser';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { DEBIAN_PLUGIN_DIR, NO_ORTHANC, type RunningOrthanc, hasOrthanc, startOrthanc } from '../../../test/orthanc.ts';
import { freePort } from '../../../test/spawned-server.ts';
import { bytesOf } from '../images/images.test-helpers.ts';
import { type GeneratedStudy, generateStudy } from '../studies/studies.test-helpers.ts';
import { NO_DCMTK, hasDcmtk } from './dicom-test-helpers.ts';

/**
 * Orthanc (Debian's package, started here on our own ports and a temporary directory) stores studies
 * into MedShare the two ways a PACS does: by C-STORE to the DIMSE receiver (its REST
 * /modalities/{id}/store, MedShare configured as one of its DicomModalities) and, through its DICOMweb
 * plugin with MedShare as a remote server (base URL, bearer token and the X-MedShare-Patient header),
 * by STOW-RS (/dicom-web/servers/{id}/stow). What Orthanc sent comes back from MedShare's WADO-RS.
 */
const PLUGIN = join(DEBIAN_PLUGIN_DIR, 'libOrthancDicomWeb.so');
const hasPlugin = hasOrthanc && existsSync(PLUGIN);
// CI installs orthanc, orthanc-dicomweb and dcmtk: there these tests must run, not skip.
if (process.env.CI && !(hasPlugin && hasDcmtk)) throw new Error(`${NO_ORTHANC} (and orthanc-dicomweb), ${NO_DCMTK}`);

let t: TestApp;
let doc: SignedIn;
let patient: SignedIn;
let orthanc: RunningOrthanc;
let dimsePort = 0;
const db = () => t.app.ctx.database.db;

/** Puts a study into Orthanc through its REST API; its Orthanc id. */
async function intoOrthanc(study: GeneratedStudy): Promise<string> {
  let id = '';
  for (const series of study.series)
    for (const instance of series.instances) {
      const res = await orthanc.request('/instances', { method: 'POST', body: new Uint8Array(instance.file.data) });
      id = ((await res.json()) as { ParentStudy: string }).ParentStudy;
    }
  return id;
}

/** What Orthanc holds of each instance of a study (and so sends), by SOP Instance UID. */
async function orthancFiles(studyId: string): Promise<Map<string, Buffer>> {
  const instances = (await (await orthanc.request(`/studies/${studyId}/instances`)).json()) as Array<{ ID: string }>;
  const files = new Map<string, Buffer>();
  for (const { ID } of instances) {
    const bytes = Buffer.from(await (await orthanc.request(`/instances/${ID}/file`)).arrayBuffer());
    files.set(dicomParser.parseDicom(new Uint8Array(bytes)).string('x00080018')!, bytes);
  }
  return files;
}

/** The data set of a Part 10 file: what follows its File Meta group. */
function dataSetOf(file: Buffer): Buffer {
  const metaLength = file.readUInt32LE(132 + 8);
  return file.subarray(132 + 12 + metaLength);
}

async function retrieve(study: GeneratedStudy, sop: string): Promise<Buffer> {
  const series = study.series.find((s) => s.instances.some((i) => i.sop === sop))!;
  const res = await t.request({
    method: 'GET',
    url: `/api/dicomweb/studies/${study.studyUid}/series/${series.uid}/instances/${sop}`,
    token: doc.token,
    headers: { accept: 'multipart/related; type="application/dicom"; transfer-syntax=*' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return bytesOf(res);
}

const rowsOf = (sops: string[]) =>
  db()
    .selectFrom('images')
    .select(['id', 'patient_id', 'uploader_id', 'dicom_sop_instance_uid'])
    .where('dicom_sop_instance_uid', 'in', sops)
    .where('deleted_at', 'is', null)
    .execute();

describe.skipIf(!hasPlugin || !hasDcmtk)(
  `Orthanc stores into MedShare (${hasPlugin && hasDcmtk ? 'found' : `${NO_ORTHANC} and orthanc-dicomweb; ${NO_DCMTK}`})`,
  () => {
    beforeAll(async () => {
      dimsePort = await freePort();
      t = await createTestApp((c) => {
        c.dimse = { port: dimsePort, aeTitle: 'MEDSHARE', allowed: [], tls: null };
      });
      doc = await newUser(t, 'healthProvider');
      patient = await newUser(t, 'patient');
      // Orthanc's own AE title (test/orthanc.ts) stores as this provider.
      t.config.dimse.allowed.push({ ae: 'MEDSHARETEST', provider: doc.user.email });
      await t.app.ctx.dimse!.start();
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      orthanc = await startOrthanc({
        plugins: [PLUGIN],
        config: {
          DicomModalities: { medshare: ['MEDSHARE', '127.0.0.1', dimsePort] },
          DicomWeb: {
            Enable: true,
            Servers: {
              medshare: {
                Url: `${address}/api/dicomweb/`,
                HttpHeaders: { Authorization: `Bearer ${doc.token}`, 'X-MedShare-Patient': patient.user.id },
              },
            },
          },
        },
      });
    }, 120_000);
    afterAll(async () => {
      await orthanc?.stop();
      await t?.close();
    });

    it('C-STORE: Orthanc sends a 3-series study to the DIMSE receiver (/modalities/medshare/store); every instance stored once as the mapped provider, its data set as Orthanc sent it', async () => {
      const study = generateStudy([3, 4, 2]);
      const id = await intoOrthanc(study);
      const echo = await orthanc.request('/modalities/medshare/echo', { method: 'POST', body: '{}' });
      expect(echo.status).toBe(200);
      const started = performance.now();
      const res = await orthanc.request('/modalities/medshare/store', {
        method: 'POST',
        body: JSON.stringify({ Resources: [id], Synchronous: true }),
      });
      const seconds = (performance.now() - started) / 1000;
      const answer = (await res.json()) as { InstancesCount?: number; FailedInstancesCount?: number };
      expect(answer.FailedInstancesCount ?? 0, JSON.stringify(answer)).toBe(0);
      const sent = await orthancFiles(id);
      expect(sent.size).toBe(9);
      const rows = await rowsOf([...sent.keys()]);
      expect(rows).toHaveLength(9);
      expect(new Set(rows.map((r) => r.uploader_id))).toEqual(new Set([doc.user.id]));
      for (const [sop, file] of sent) {
        const back = await retrieve(study, sop);
        expect(back.includes(dataSetOf(file)), `data set of ${sop} as Orthanc sent it`).toBe(true);
      }
      console.warn(`Orthanc C-STORE of 9 instances into the DIMSE receiver: ${seconds.toFixed(2)} s`);
    }, 120_000);

    it("STOW-RS: Orthanc's DICOMweb plugin stores a study into MedShare for the patient of its X-MedShare-Patient header; every instance comes back byte-identical through WADO-RS", async () => {
      const study = generateStudy([3, 4, 2]);
      const id = await intoOrthanc(study);
      const started = performance.now();
      const res = await orthanc.request('/dicom-web/servers/medshare/stow', {
        method: 'POST',
        body: JSON.stringify({ Resources: [id], Synchronous: true }),
      });
      const seconds = (performance.now() - started) / 1000;
      expect(res.status).toBe(200);
      const sent = await orthancFiles(id);
      const rows = await rowsOf([...sent.keys()]);
      expect(rows).toHaveLength(9);
      expect(new Set(rows.map((r) => r.patient_id))).toEqual(new Set([patient.user.id]));
      for (const [sop, file] of sent) {
        const back = await retrieve(study, sop);
        expect(back.includes(file), `instance ${sop} byte-identical`).toBe(true);
      }
      // A second STOW of the same study: answered as stored, nothing stored twice.
      const again = await orthanc.request('/dicom-web/servers/medshare/stow', {
        method: 'POST',
        body: JSON.stringify({ Resources: [id], Synchronous: true }),
      });
      expect(again.status).toBe(200);
      expect(await rowsOf([...sent.keys()])).toHaveLength(9);
      console.warn(`Orthanc STOW-RS of 9 instances into MedShare: ${seconds.toFixed(2)} s`);
    }, 120_000);
  },
);

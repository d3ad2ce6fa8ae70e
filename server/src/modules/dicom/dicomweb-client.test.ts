import dcmjs from 'dcmjs';
import dicomParser from 'dicom-parser';
import { api } from 'dicomweb-client';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { fixture, uploadFile } from '../images/images.test-helpers.ts';

/**
 * `dicomweb-client` (the library OHIF uses, run in Node over xhr2's XMLHttpRequest) against the
 * real app on a real port, with its default Accept headers: QIDO, study metadata, frames (its
 * default is application/octet-stream without a transfer syntax: decoded native pixels), the whole
 * study (application/dicom without a transfer syntax: Explicit VR LE) and a rendered instance.
 */
let t: TestApp;
let doc: SignedIn;
/** The calls used here; the library's own declarations mark optional options (request, singlepart) as required. */
interface Client {
  searchForStudies(options?: object): Promise<unknown>;
  searchForSeries(options: object): Promise<unknown>;
  retrieveStudyMetadata(options: object): Promise<unknown>;
  retrieveInstanceFrames(options: object): Promise<unknown>;
  retrieveStudy(options: object): Promise<unknown>;
  retrieveInstanceRendered(options: object): Promise<unknown>;
}
let dw: Client;
const jpeg = fixture('dicom/ct_multiframe_jpeg_lossless_sv1.dcm').data;
const parse = (bytes: ArrayBuffer | Buffer) =>
  dicomParser.parseDicom(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : new Uint8Array(bytes));
const jpegUids = (() => {
  const ds = parse(jpeg);
  return { study: ds.string('x0020000d')!, series: ds.string('x0020000e')!, sop: ds.string('x00080018')! };
})();
const copies: Buffer[] = [];

beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
  const put = async (name: string, data: Buffer) =>
    expect((await uploadFile(t, doc.token, { ...fixture(`dicom/${name}`), data }, { caption: name })).statusCode).toBe(
      201,
    );
  await put('ct_multiframe_jpeg_lossless_sv1.dcm', jpeg);
  const small = fixture('dicom/ct_explicit_le_16bit_signed_small.dcm').data;
  const message = dcmjs.data.DicomMessage.readFile(
    small.buffer.slice(small.byteOffset, small.byteOffset + small.length) as ArrayBuffer,
  );
  message.dict['0020000D'] = { vr: 'UI', Value: [jpegUids.study] };
  message.dict['0020000E'] = { vr: 'UI', Value: [`${jpegUids.study}.5`] };
  message.dict['00080018'] = { vr: 'UI', Value: [`${jpegUids.study}.5.1`] };
  message.meta['00020003'] = { vr: 'UI', Value: [`${jpegUids.study}.5.1`] };
  copies.push(Buffer.from(message.write()));
  await put('ct_explicit_le_16bit_signed_small.dcm', copies[0]!);
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  // dicomweb-client makes its requests with the browser's XMLHttpRequest: xhr2 is that for Node.
  (globalThis as { XMLHttpRequest?: unknown }).XMLHttpRequest = createRequire(import.meta.url)('xhr2');
  const options = { url: `${address}/api/dicomweb`, headers: { Authorization: `Bearer ${doc.token}` } };
  dw = new api.DICOMwebClient(options as ConstructorParameters<typeof api.DICOMwebClient>[0]) as unknown as Client;
});
afterAll(async () => t?.close());

type Result = Record<string, { Value?: unknown[] }>;

describe('dicomweb-client against MedShare', () => {
  it('searches studies and series (QIDO-RS)', async () => {
    const studies = (await dw.searchForStudies()) as Result[];
    const study = studies.find((s) => s['0020000D']?.Value?.[0] === jpegUids.study);
    expect(study).toBeDefined();
    expect(study!['00201208']!.Value).toEqual([2]);
    const series = (await dw.searchForSeries({ studyInstanceUID: jpegUids.study })) as Result[];
    expect(series.map((s) => s['0020000E']!.Value![0]).sort()).toEqual([jpegUids.series, `${jpegUids.study}.5`].sort());
  });

  it('reads the study metadata (one data set per instance)', async () => {
    const metadata = (await dw.retrieveStudyMetadata({ studyInstanceUID: jpegUids.study })) as Result[];
    expect(metadata).toHaveLength(2);
    expect(metadata.every((m) => m['00100010'] !== undefined && m['7FE00010']?.Value === undefined)).toBe(true);
  });

  it('reads frames with its default Accept: native little-endian pixels, decoded from JPEG Lossless', async () => {
    const frames = (await dw.retrieveInstanceFrames({
      studyInstanceUID: jpegUids.study,
      seriesInstanceUID: jpegUids.series,
      sopInstanceUID: jpegUids.sop,
      frameNumbers: [1, 2],
    })) as ArrayBuffer[];
    expect(frames.map((f) => f.byteLength)).toEqual([512 * 512 * 2, 512 * 512 * 2]);
  });

  it('retrieves the whole study with its default Accept (Explicit VR LE), and a rendered instance', async () => {
    const instances = (await dw.retrieveStudy({ studyInstanceUID: jpegUids.study })) as ArrayBuffer[];
    expect(instances).toHaveLength(2);
    for (const bytes of instances) expect(parse(bytes).string('x00020010')).toBe('1.2.840.10008.1.2.1');
    expect(instances.some((b) => Buffer.from(b).equals(copies[0]!))).toBe(true);
    const png = (await dw.retrieveInstanceRendered({
      studyInstanceUID: jpegUids.study,
      seriesInstanceUID: jpegUids.series,
      sopInstanceUID: jpegUids.sop,
      mediaTypes: [{ mediaType: 'image/png' }],
    })) as ArrayBuffer[];
    // It hands single-part answers back as a list of one body, like multipart ones.
    const meta = await sharp(Buffer.from(png[0]!)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 512, 512]);
  });
});

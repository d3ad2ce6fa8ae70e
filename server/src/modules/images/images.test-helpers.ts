import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestApp } from '../../../test/harness.ts';

export const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));

/** DICOM fixtures that are valid images: not the DICOMDIR, ECG and SR files, nor the malformed ones. */
export const isImageFixture = (name: string): boolean =>
  name.endsWith('.dcm') && !/^(dicomdir_|ecg_|sr_|malformed_)/.test(name);

/** The DICOM image fixtures by name, sorted (the thumbnail tests and the DICOM benches). */
export const imageFixtureNames = (): string[] => readdirSync(join(FIXTURES, 'dicom')).filter(isImageFixture).sort();

export interface FixtureFile {
  path: string;
  name: string;
  type: string;
  data: Buffer;
}

const typeByExt: Record<string, string> = {
  '.dcm': 'application/dicom',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
};

export function fixtures(): FixtureFile[] {
  return ['dicom', 'other'].flatMap((dir) =>
    readdirSync(join(FIXTURES, dir))
      .sort()
      .map((name) => ({
        path: `${dir}/${name}`,
        name,
        type: typeByExt[name.slice(name.lastIndexOf('.'))]!,
        data: readFileSync(join(FIXTURES, dir, name)),
      })),
  );
}

export const fixture = (path: string) => fixtures().find((f) => f.path === path)!;

/** A multipart body built the way a browser builds it (FormData), as bytes plus its content type. */
export async function multipartBody(fields: Array<[string, string | { name: string; type: string; data: Buffer }]>) {
  const form = new FormData();
  for (const [key, value] of fields) {
    if (typeof value === 'string') form.append(key, value);
    else form.append(key, new Blob([new Uint8Array(value.data)], { type: value.type }), value.name);
  }
  const request = new Request('http://upload.test/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type')! },
  };
}

export async function uploadFile(
  t: TestApp,
  token: string,
  file: { name: string; type: string; data: Buffer } | null,
  fields: { caption?: string; patientId?: string } = { caption: 'Chest X-ray' },
) {
  const parts: Array<[string, string | { name: string; type: string; data: Buffer }]> = [];
  if (fields.caption !== undefined) parts.push(['caption', fields.caption]);
  if (file) parts.push(['file', file]);
  if (fields.patientId !== undefined) parts.push(['patientId', fields.patientId]);
  const body = await multipartBody(parts);
  return t.request({ method: 'POST', url: '/api/upload/image', payload: body.payload, headers: body.headers, token });
}

/** Bytes of a content response (inject keeps them in rawPayload). */
export const bytesOf = (res: { rawPayload: Buffer }) => Buffer.from(res.rawPayload);

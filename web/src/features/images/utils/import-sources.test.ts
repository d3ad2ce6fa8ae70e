import { describe, expect, it } from 'vitest';
import { isHiddenPath, pickedFromDrop, pickedFromInput } from './import-sources';
import { dirEntry, fileEntry } from './import-testing';

describe('what was picked or dropped', () => {
  it('walks a dropped folder through every batch of its reader and its subfolders, paths without the leading slash', async () => {
    const cd = dirEntry('CD', [
      fileEntry('CD/DICOMDIR'),
      dirEntry('CD/DICOM', [fileEntry('CD/DICOM/IM1'), fileEntry('CD/DICOM/IM2'), fileEntry('CD/DICOM/IM3')]),
      fileEntry('CD/README.TXT'),
    ]);
    const picked = await pickedFromDrop([cd, fileEntry('loose.dcm')], 100);
    expect(picked.map((p) => p.path)).toEqual([
      'CD/DICOMDIR',
      'CD/DICOM/IM1',
      'CD/DICOM/IM2',
      'CD/DICOM/IM3',
      'CD/README.TXT',
      'loose.dcm',
    ]);
    expect(picked[1]?.file.name).toBe('IM1');
  });

  it('stops walking a dropped folder past the number it was given (a huge folder is not read to the end)', async () => {
    const big = dirEntry(
      'big',
      Array.from({ length: 50 }, (_, i) => fileEntry(`big/IM${i}`)),
    );
    expect((await pickedFromDrop([big], 10)).length).toBeLessThanOrEqual(12);
  });

  it('takes a picked folder path from webkitRelativePath, and knows hidden files and macOS forks', () => {
    const file = new File(['x'], 'IM1');
    Object.defineProperty(file, 'webkitRelativePath', { value: 'CD/DICOM/IM1' });
    expect(pickedFromInput([file, new File(['y'], 'a.dcm')]).map((p) => p.path)).toEqual(['CD/DICOM/IM1', 'a.dcm']);
    expect(isHiddenPath('CD/.DS_Store')).toBe(true);
    expect(isHiddenPath('__MACOSX/CD/._IM1')).toBe(true);
    expect(isHiddenPath('.git/config')).toBe(true);
    expect(isHiddenPath('CD/DICOM/IM1')).toBe(false);
  });
});

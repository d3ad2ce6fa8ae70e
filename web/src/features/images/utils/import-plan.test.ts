import { describe, expect, it } from 'vitest';
import { type ImportLimits, ImportMessages, type ImportPlan, planImport } from './import-plan';
import { EntryTooLarge } from './import-sources';
import { fixtureBytes, lieAboutSizes, makeZip, pickedBytes, pickedFixture, pickedZip } from './import-testing';

const LIMITS: ImportLimits = { maxUploadMb: 10, maxImportFiles: 2000, maxImportMb: 2048 };
const MB = 1024 * 1024;

const states = (plan: ImportPlan) => Object.fromEntries(plan.items.map((i) => [i.path, i.state]));

describe('planImport: what a study import sends (docs/product.md › Upload)', () => {
  it('keeps DICOM files (by prefix or extension), skips other files with a note and leaves hidden files out', async () => {
    const plan = await planImport(
      [
        pickedFixture('ct_explicit_le_16bit_signed_small.dcm', 'study/ct.dcm'),
        // No extension, as on a disc: recognised by its DICM prefix.
        pickedFixture('mr_explicit_be_16bit_signed.dcm', 'study/IM000002'),
        pickedBytes('not an image', 'study/README'),
        pickedBytes('<html></html>', 'study/index.html'),
        pickedBytes(new Uint8Array([0xff, 0xd8, 0xff]), 'study/photo.jpg', 'image/jpeg'),
        pickedBytes('x', 'study/.DS_Store'),
        pickedBytes('x', 'study/.hidden/IM1.dcm'),
      ],
      LIMITS,
    );
    expect(plan.refusal).toBeNull();
    expect(states(plan)).toEqual({
      'study/ct.dcm': { status: 'queued' },
      'study/IM000002': { status: 'queued' },
      'study/README': { status: 'skipped', reason: ImportMessages.notDicom },
      'study/index.html': { status: 'skipped', reason: ImportMessages.notDicom },
      'study/photo.jpg': { status: 'skipped', reason: ImportMessages.notDicom },
    });
  });

  it('marks a file past the per-file limit as failed with the limit in its reason, before anything is sent', async () => {
    const plan = await planImport(
      [
        pickedBytes(new Uint8Array(MB + 1), 'big.dcm'),
        pickedFixture('ct_explicit_le_16bit_signed_small.dcm', 'ct.dcm'),
      ],
      { ...LIMITS, maxUploadMb: 1 },
    );
    expect(states(plan)['big.dcm']).toEqual({ status: 'failed', reason: 'File size exceeds 1MB limit.' });
    expect(states(plan)['ct.dcm']).toEqual({ status: 'queued' });
    expect(plan.refusal).toBeNull();
  });

  it('lists files by path with numbers in order (IM2 before IM10)', async () => {
    const plan = await planImport(
      ['s/IM10', 's/IM2', 's/IM1'].map((p) => pickedFixture('ct_explicit_le_16bit_signed_small.dcm', p)),
      LIMITS,
    );
    expect(plan.items.map((i) => i.path)).toEqual(['s/IM1', 's/IM2', 's/IM10']);
  });

  it('refuses the whole import past max_import_files or max_import_mb, naming the limit', async () => {
    const files = [1, 2, 3].map((n) => pickedBytes(new Uint8Array(400 * 1024), `s/${n}.dcm`));
    const byCount = await planImport(files, { ...LIMITS, maxImportFiles: 2 });
    expect(byCount.refusal).toBe(ImportMessages.tooManyFiles(3, 2));
    expect(byCount.refusal).toContain('max_import_files');
    const byBytes = await planImport(files, { ...LIMITS, maxImportMb: 1 });
    expect(byBytes.refusal).toBe(ImportMessages.tooManyBytes(2, 1));
    expect(byBytes.refusal).toContain('max_import_mb');
    expect((await planImport(files, LIMITS)).refusal).toBeNull();
  });

  it('says so when nothing among the chosen files is DICOM', async () => {
    const plan = await planImport([pickedBytes('a', 'a.txt'), pickedBytes('b', 'b.pdf')], LIMITS);
    expect(plan.refusal).toBe(ImportMessages.nothingToImport);
  });
});

describe('planImport: a DICOMDIR', () => {
  // The real DICOMDIR of pydicom's test set lists 31 files under 77654033/…; two of them are given
  // here, one with its name in lower case (disc names are upper case, copies are not always).
  const dicomdir = () => pickedFixture('dicomdir_explicit_le.dcm', 'CD/DICOMDIR');

  it('resolves the files it lists (any case, no extension needed), skips itself and notes the listed files that are missing', async () => {
    const plan = await planImport(
      [
        dicomdir(),
        // A listed file without a DICM prefix is still sent: the DICOMDIR says what it is, the server checks.
        pickedBytes(fixtureBytes('cr_implicit_le_no_preamble_mono1.dcm'), 'CD/77654033/CR1/6154'),
        pickedFixture('ct_explicit_le_16bit_signed_small.dcm', 'CD/77654033/ct2/17106'),
        pickedBytes('autorun', 'CD/AUTORUN'),
      ],
      LIMITS,
    );
    expect(plan.refusal).toBeNull();
    expect(states(plan)).toEqual({
      'CD/DICOMDIR': { status: 'skipped', reason: ImportMessages.dicomdir(2) },
      'CD/77654033/CR1/6154': { status: 'queued' },
      'CD/77654033/ct2/17106': { status: 'queued' },
      'CD/AUTORUN': { status: 'skipped', reason: ImportMessages.notDicom },
    });
    expect(plan.notes).toEqual([ImportMessages.refsMissing(29)]);
  });

  it('ignores references outside its own folder: a file of that name elsewhere is not taken for it', async () => {
    const plan = await planImport([dicomdir(), pickedBytes('not dicom', 'OTHER/77654033/CR1/6154')], LIMITS);
    expect(states(plan)['OTHER/77654033/CR1/6154']).toEqual({ status: 'skipped', reason: ImportMessages.notDicom });
    expect(plan.refusal).toBe(ImportMessages.dicomdirFilesMissing);
  });

  it('refuses a DICOMDIR alone (its files are not there) with its own message', async () => {
    const plan = await planImport([dicomdir()], LIMITS);
    expect(plan.refusal).toBe(ImportMessages.dicomdirFilesMissing);
    expect(plan.notes).toEqual([ImportMessages.refsMissing(31)]);
  });
});

describe('planImport: a .zip', () => {
  it('lists its DICOM files without inflating them, leaving __MACOSX/, dot files and folders out', async () => {
    const zip = await makeZip({
      'export/DICOMDIR': fixtureBytes('dicomdir_explicit_le.dcm'),
      'export/77654033/CR1/6154': fixtureBytes('cr_implicit_le_no_preamble_mono1.dcm'),
      'export/ct.dcm': fixtureBytes('ct_explicit_le_16bit_signed_small.dcm'),
      'export/IM000009': fixtureBytes('mr_explicit_be_16bit_signed.dcm'),
      'export/readme.txt': 'hello',
      '__MACOSX/export/._ct.dcm': 'fork',
      'export/.DS_Store': 'x',
    });
    const plan = await planImport([pickedZip(zip, 'study.zip')], LIMITS);
    expect(plan.refusal).toBeNull();
    // Listed by path, numbers in order.
    expect(plan.items.map((i) => [i.path, i.state.status, i.check])).toEqual([
      ['study.zip › export/77654033/CR1/6154', 'queued', 'dicom'],
      ['study.zip › export/ct.dcm', 'queued', 'dicom'],
      ['study.zip › export/DICOMDIR', 'skipped', 'dicom'],
      // Not listed and no extension: its prefix is checked when its turn comes.
      ['study.zip › export/IM000009', 'queued', 'sniff'],
      ['study.zip › export/readme.txt', 'skipped', 'dicom'],
    ]);
    const ct = plan.items[1]!;
    const bytes = new Uint8Array(await (await ct.entry.open(10 * MB)).arrayBuffer());
    expect(bytes).toEqual(fixtureBytes('ct_explicit_le_16bit_signed_small.dcm'));
  });

  it('refuses a zip bomb: an entry declaring more than the per-file limit fails unread, a total past max_import_mb refuses all', async () => {
    const zeros = new Uint8Array(3 * MB);
    const zip = await makeZip({
      'a.dcm': zeros,
      'b.dcm': zeros,
      'c.dcm': fixtureBytes('ct_explicit_le_16bit_signed_small.dcm'),
    });
    expect(zip.length).toBeLessThan(100 * 1024);
    const plan = await planImport([pickedZip(zip, 'bomb.zip')], { ...LIMITS, maxUploadMb: 1 });
    expect(states(plan)['bomb.zip › a.dcm']).toEqual({ status: 'failed', reason: 'File size exceeds 1MB limit.' });
    expect(states(plan)['bomb.zip › c.dcm']).toEqual({ status: 'queued' });

    const total = await planImport([pickedZip(zip, 'bomb.zip')], { ...LIMITS, maxImportMb: 5 });
    expect(total.refusal).toBe(ImportMessages.tooManyBytes(7, 5));
  });

  it('never inflates an entry that lies about its size past what it declared: reading it fails', async () => {
    const zip = lieAboutSizes(await makeZip({ 'liar.dcm': new Uint8Array(5 * MB) }), 1000);
    const plan = await planImport([pickedZip(zip, 'liar.zip')], { ...LIMITS, maxUploadMb: 1 });
    const [liar] = plan.items;
    expect(liar?.size).toBe(1000);
    expect(liar?.state).toEqual({ status: 'queued' });
    await expect(liar!.entry.open(MB)).rejects.toThrow(/larger than it declares/);
  });

  it('stops inflating an entry as soon as it passes the per-file limit', async () => {
    const zip = await makeZip({ 'big.dcm': new Uint8Array(3 * MB) });
    const [big] = (await planImport([pickedZip(zip, 'z.zip')], LIMITS)).items;
    // Opened with a lower limit than the one it was planned with (the setting changed in between).
    await expect(big!.entry.open(MB)).rejects.toBeInstanceOf(EntryTooLarge);
  });

  it('refuses a zip larger than the whole import may be, and a file that is not a zip', async () => {
    const big = pickedZip(new Uint8Array(MB + 10), 'huge.zip');
    expect((await planImport([big], { ...LIMITS, maxImportMb: 1 })).refusal).toBe(
      ImportMessages.zipTooLarge('huge.zip', 1),
    );
    const notZip = new TextEncoder().encode('this is not a zip at all, only text');
    expect((await planImport([pickedZip(notZip, 'broken.zip')], LIMITS)).refusal).toBe(
      ImportMessages.zipUnreadable('broken.zip'),
    );
  });
});

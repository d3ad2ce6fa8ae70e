import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findDocProblems } from './doc-references.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'doc-references-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Files are read, not a database: once is enough (the postgres project would repeat it).
describe.skipIf(process.env.MEDSHARE_TEST_DB === 'postgres')('references to documents', () => {
  it('every `docs/<file>.md › <section>` in the tree names an existing file and heading, and nothing cites outside design documents', () => {
    expect(findDocProblems(repoRoot).map((p) => `${p.file}:${p.line}: ${p.problem}`)).toEqual([]);
  });

  it('finds a missing heading, a missing file and citations of documents outside the repository', () => {
    mkdirSync(join(scratch, 'docs'));
    writeFileSync(join(scratch, 'docs', 'guide.md'), '# Guide\n\n## Sharing rules\n\n```\n## not a heading\n```\n');
    writeFileSync(
      join(scratch, 'code.ts'),
      [
        '/** Fine: docs/guide.md › Sharing rules, and a wrapped one: `docs/guide.md` › Sharing',
        ' * rules. */',
        '// Broken: docs/guide.md › Sharing policy',
        '// Broken: docs/guide.md › not a heading',
        '// Broken: docs/missing.md › Anything',
        '// Outside: DESIGN §7, spec §4, (spec "Upload"), the spec\'s payload, see product-spec.md',
      ].join('\n'),
    );
    const problems = findDocProblems(scratch).map((p) => `${p.line}: ${p.problem}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        '3: docs/guide.md has no heading "Sharing policy"',
        '4: docs/guide.md has no heading "not a heading"',
        '5: docs/missing.md does not exist',
        expect.stringMatching(/^6: cites DESIGN/),
        expect.stringMatching(/^6: cites spec §n/),
        expect.stringMatching(/^6: cites a spec section by name/),
        expect.stringMatching(/^6: cites 'the spec'/),
        expect.stringMatching(/^6: cites a document outside the repository/),
      ]),
    );
    expect(problems.filter((p) => /^[12]:/.test(p))).toEqual([]);
    expect(problems).toHaveLength(8);
  });
});

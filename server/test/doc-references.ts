import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Checks what comments and documents cite: `docs/<file>.md › <section heading>` must name a file
 * under docs/ and one of its headings, a bare `docs/<file>.md` an existing file, and nothing may
 * cite the design documents this repository grew from (they are not in it: docs/ holds what the
 * code relies on, see docs/architecture.md › Design contracts).
 */

export interface DocProblem {
  file: string;
  line: number;
  problem: string;
}

/** Files whose text is scanned; generated or vendored ones are left out. */
const TEXT_FILE = /\.(ts|tsx|js|mjs|cjs|md|json|ya?ml|html|css)$|^run$/;
const SKIP_DIRS = new Set([
  'node_modules',
  'dist',
  '.git',
  'data',
  'test-results',
  'playwright-report',
  '.reports',
  'fixtures',
  'screenshots',
]);
const SKIP_FILES = new Set(['package-lock.json', 'openapi.json']);
/** The checker and its test hold the very patterns they look for. */
const SELF = new Set(['server/test/doc-references.ts', 'server/test/doc-references.test.ts']);

/** Citations of documents outside the repository, each with what to write instead. */
const OUTSIDE_CITATIONS: Array<[RegExp, string]> = [
  [/\bDESIGN\b/, 'DESIGN (the design notes are in docs/architecture.md and docs/decisions.md)'],
  [/product-spec|\bSTYLE\.md\b|\bBENCHMARKS\.md\b/, 'a document outside the repository'],
  [/\bspec\s*§/i, 'spec §n (the product is described in docs/product.md)'],
  [/\bspec\s*["“:]/i, 'a spec section by name (cite docs/product.md › <section>)'],
  [/\b(?:the|The) spec(?:'s)?\b/, "'the spec' (cite docs/product.md › <section>)"],
];

const REFERENCE = /docs\/([\w-]+)\.md`?([ \t]*›)?/g;

function headingsOf(markdown: string): string[] {
  const headings: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) headings.push(m[1]!);
  }
  return headings;
}

/** The text after a reference, with line breaks and comment markers of wrapped comments folded into spaces. */
function textAfter(source: string, from: number): string {
  return source
    .slice(from, from + 300)
    .replace(/\s*\n\s*(?:\*(?!\/)|\/\/|#|\{\/\*)?\s*/g, ' ')
    .trimStart();
}

function listFiles(root: string, dir = root, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) listFiles(root, join(dir, entry.name), out);
    } else if (TEXT_FILE.test(entry.name) && !SKIP_FILES.has(entry.name)) {
      out.push(join(dir, entry.name));
    }
  }
  return out;
}

/**
 * Every broken or outside reference under `root`. `docsDir` holds the documents references are
 * resolved against (the repository's docs/ unless a test says otherwise).
 */
export function findDocProblems(root: string, docsDir = join(root, 'docs')): DocProblem[] {
  const headings = new Map<string, string[] | null>();
  const headingsOfDoc = (name: string) => {
    if (!headings.has(name)) {
      try {
        headings.set(name, headingsOf(readFileSync(join(docsDir, `${name}.md`), 'utf8')));
      } catch {
        headings.set(name, null);
      }
    }
    return headings.get(name)!;
  };

  const problems: DocProblem[] = [];
  for (const path of listFiles(root)) {
    const file = relative(root, path);
    if (SELF.has(file)) continue;
    const source = readFileSync(path, 'utf8');
    const lineAt = (index: number) => source.slice(0, index).split('\n').length;

    source.split('\n').forEach((text, i) => {
      for (const [pattern, what] of OUTSIDE_CITATIONS) {
        if (pattern.test(text)) problems.push({ file, line: i + 1, problem: `cites ${what}` });
      }
    });

    for (const m of source.matchAll(REFERENCE)) {
      const name = m[1]!;
      const known = headingsOfDoc(name);
      if (!known) {
        problems.push({ file, line: lineAt(m.index), problem: `docs/${name}.md does not exist` });
        continue;
      }
      if (!m[2]) continue;
      const after = textAfter(source, m.index + m[0].length);
      if (after.startsWith('<')) continue; // the form itself, e.g. `docs/<file>.md › <section heading>`
      const found = known.some((h) => after.startsWith(h) && !/^[\p{L}\p{N}]/u.test(after.slice(h.length)));
      if (!found) {
        const rest = source.slice(m.index + m[0].length).split('\n')[0]!;
        const cited = rest.split(/[.,;)`'"*]|\s{2}/)[0]!.trim();
        problems.push({ file, line: lineAt(m.index), problem: `docs/${name}.md has no heading "${cited}"` });
      }
    }
  }
  return problems;
}

// Initial JavaScript of the production build: the entry script plus its modulepreloads, gzipped.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = process.argv[2] ?? 'web/dist';
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
let total = 0;
for (const f of files) {
  const size = gzipSync(readFileSync(join(dist, f)), { level: 9 }).length;
  total += size;
  console.log(`${(size / 1024).toFixed(1).padStart(7)} KiB  ${f}`);
}
console.log(`${(total / 1024).toFixed(1).padStart(7)} KiB  initial JS, gzipped (budget 250 KB)`);
process.exit(total > 250_000 ? 1 : 0);

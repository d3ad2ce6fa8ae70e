/**
 * Where a DICOM thumbnail's CPU goes, stage by stage, on the image fixtures that bench:orthanc
 * ingests (server/test/fixtures/dicom without DICOMDIR, ECG, SR and the malformed files):
 * the DICOM worker's parse and check, its first frame decoded and windowed for the thumbnail
 * (thumbnail-frame.ts; the full dcmjs-imaging render where it answers null), and the
 * thumbnailer's resize and JPEG encode (sharp). In one process, with the same functions the worker and
 * `images/thumbnails.ts` call; the CPU is this process's (every thread: libvips runs its own).
 *
 *   node bench/thumbnails.ts [--rounds 30]
 *
 * What bench:orthanc reports as "deferred thumbnails … ms each" adds the blob read and decrypt, the
 * worker hop, the encrypted write and the row update to these stages.
 */
import dcmjs from 'dcmjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { inspect, parseDicom } from '../server/src/modules/dicom/dicom-core.ts';
import { initCodecs } from '../server/src/modules/dicom/render.ts';
import { thumbnailPixels } from '../server/src/modules/dicom/thumbnail-frame.ts';
import { THUMBNAIL_MAX_PX, encodeThumbnail } from '../server/src/modules/images/thumbnails.ts';
import { DICOM_FIXTURES, fmt, imageFixtureNames, machine, median } from './support.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '30' } } });
const ROUNDS = Number(args.rounds);

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function stages(bytes: Uint8Array) {
  let at = cpuNow();
  const parsed = parseDicom(bytes);
  inspect(parsed);
  const parse = cpuNow() - at;
  at = cpuNow();
  // The worker's 'thumbnail' operation: the reduced frame, else the full render.
  const frame = await thumbnailPixels(bytes, parsed, THUMBNAIL_MAX_PX);
  const render = cpuNow() - at;
  at = cpuNow();
  const encoded = await encodeThumbnail(frame);
  const encode = cpuNow() - at;
  return { parse, render, encode, total: parse + render + encode, size: encoded.length };
}

// As in the DICOM worker: dcmjs and dcmjs-imaging's own copy warn of every private VR they read.
dcmjs.log.setLevel('silent');
const print = console.log.bind(console);
console.log = console.warn = () => undefined;
await initCodecs();
const names = imageFixtureNames();
print(`${machine()}\n${names.length} fixtures, ${ROUNDS} rounds each (medians, CPU ms of every thread)\n`);
print('| fixture | parse + check | frame | JPEG (resize if needed) | total | JPEG bytes |');
print('|---|---:|---:|---:|---:|---:|');
const totals: number[] = [];
for (const name of names) {
  const bytes = new Uint8Array(readFileSync(join(DICOM_FIXTURES, name)));
  for (let i = 0; i < 3; i++) await stages(bytes); // warm: JIT, codecs, libvips caches
  const runs: Array<Awaited<ReturnType<typeof stages>>> = [];
  for (let i = 0; i < ROUNDS; i++) runs.push(await stages(bytes));
  const m = (k: 'parse' | 'render' | 'encode' | 'total') => median(runs.map((r) => r[k]));
  totals.push(m('total'));
  print(
    `| ${name} | ${fmt(m('parse'), 2)} | ${fmt(m('render'), 2)} | ${fmt(m('encode'), 2)} | ${fmt(m('total'), 2)} | ${runs[0]!.size} |`,
  );
}
print(`\nmean of the fixtures' medians: ${fmt(totals.reduce((a, b) => a + b, 0) / totals.length, 2)} ms`);

import type { OutputChunk } from 'rolldown';
import type { Plugin } from 'vite';

/**
 * V8's explicit compile hint (Chromium 136 and later; to other engines a comment). As the first line
 * of a file it has V8 compile every function of the file while the file streams in, on a background
 * thread, instead of pre-parsing each function and parsing it again on the main thread the first time
 * it runs. On a phone's slowed CPU View Images' main thread spent 590–720 ms compiling, 210–310 ms with
 * the hint (docs/decisions.md › Compile hints).
 */
const COMPILE_HINT = '//# allFunctionsCalledOnLoad';

/**
 * Above this much code a chunk is a library that one feature loads and uses a part of (the DICOM
 * viewer): compiling all of it would be wasted work and memory, so V8 keeps compiling it lazily.
 * Rendered (not yet minified) length.
 */
const HINTED_CHUNK_MAX_LENGTH = 512 * 1024;

function wantsCompileHint(chunk: Pick<OutputChunk, 'isEntry' | 'modules'>): boolean {
  if (chunk.isEntry) return true;
  let length = 0;
  for (const module of Object.values(chunk.modules)) length += module.renderedLength;
  return length <= HINTED_CHUNK_MAX_LENGTH;
}

/**
 * Puts the hint on the first line of the chunks that want it. It must be the first line: on the
 * second, below the entry's `__vite__mapDeps` line, V8 compiled the entry lazily as before. So this
 * runs when the bundle is written, after Vite has added that line; a source map gains one empty line.
 */
export function compileHints(): Plugin {
  return {
    name: 'medshare-compile-hints',
    // Not the server-side build of the prerendered page: Node runs it once, at build time.
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const chunk of Object.values(bundle)) {
          if (chunk.type !== 'chunk' || !wantsCompileHint(chunk)) continue;
          chunk.code = `${COMPILE_HINT}\n${chunk.code}`;
          // The map of a `--sourcemap` build is already its own asset by now: both gain the empty line.
          if (chunk.map) chunk.map.mappings = `;${chunk.map.mappings}`;
          const map = bundle[`${chunk.fileName}.map`];
          if (map?.type === 'asset' && typeof map.source === 'string') {
            const json = JSON.parse(map.source) as { mappings: string };
            map.source = JSON.stringify({ ...json, mappings: `;${json.mappings}` });
          }
        }
      },
    },
  };
}

import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|wasm|txt|map)$/;

/**
 * Writes `.br` and `.gz` beside every compressible asset after the build, so the server
 * (@fastify/static `preCompressed`) sends them without compressing per request.
 */
export function precompress(minBytes = 1024): Plugin {
  let outDir = 'dist';
  return {
    name: 'medshare-precompress',
    // Not the server-side build of the prerendered page: nothing serves it.
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = (await readdir(outDir, { recursive: true })).filter((f) => COMPRESSIBLE.test(f));
      await Promise.all(
        files.map(async (file) => {
          const path = join(outDir, file);
          const data = await readFile(path);
          if (data.length < minBytes) return;
          const [b, g] = await Promise.all([
            brotli(data, {
              // Quality 11 on the 4 MB viewer chunk alone takes ~15 s; 9 is ~10x faster and a few % larger.
              params: {
                [constants.BROTLI_PARAM_QUALITY]: data.length > 512 * 1024 ? 9 : 11,
                [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
              },
            }),
            gz(data, { level: 9 }),
          ]);
          await Promise.all([writeFile(`${path}.br`, b), writeFile(`${path}.gz`, g)]);
        }),
      );
    },
  };
}

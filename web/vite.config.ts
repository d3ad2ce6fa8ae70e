import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { bundleMode } from './build/bundle-mode.ts';
import { compileHints } from './build/compile-hints.ts';
import { precompress } from './build/precompress.ts';

// The server answers with `style-src 'self' 'nonce-…'`; a preview should fail the same way a
// deployment would, so it sends the same policy with the unreplaced placeholder as the nonce.
const previewCsp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'nonce-__CSP_NONCE__'",
  "img-src 'self' blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join('; ');

export default defineConfig({
  plugins: [bundleMode(), react(), compileHints(), precompress()],
  html: {
    // The server replaces the placeholder per request; Vite stamps it on its tags and emits
    // <meta property="csp-nonce"> so Emotion can read it at runtime.
    cspNonce: '__CSP_NONCE__',
  },
  build: {
    // Inlined assets would become data: URLs, which the CSP does not allow for fonts and images.
    assetsInlineLimit: 0,
    sourcemap: false,
    // Which chunks each route needs (web/build/route-preloads.ts); removed once read.
    manifest: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // Everything the entry imports statically is one chunk: every page needs all of it before
            // its first render, and split into eleven files it cost a round trip each on a phone's
            // HTTP/1.1 connections (bench/RESULTS.md › Lighthouse, View Images).
            { name: 'index', tags: ['$initial'], priority: 2 },
            // MUI's small lazily used modules (icons, *Classes, hooks; each under 4 KB) in one chunk
            // of ~13 KiB gzipped instead of a file each: View Images' chunks 50 -> 28, at the cost
            // of some bytes a page does not use.
            { name: 'ui-small', test: /node_modules[\\/]@mui[\\/]/, maxModuleSize: 4000, priority: 1 },
          ],
        },
      },
    },
  },
  // The landing page's build-time render (build/prerender.ts) runs the app's code in Node: bundle
  // every dependency into it rather than resolve MUI's and the others' files at run time.
  ssr: { noExternal: true },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8080',
    },
  },
  preview: {
    headers: { 'Content-Security-Policy': previewCsp },
  },
});

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { bundleMode } from './build/bundle-mode.ts';
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
  plugins: [bundleMode(), react(), precompress()],
  html: {
    // The server replaces the placeholder per request; Vite stamps it on its tags and emits
    // <meta property="csp-nonce"> so Emotion can read it at runtime.
    cspNonce: '__CSP_NONCE__',
  },
  build: {
    // Inlined assets would become data: URLs, which the CSP does not allow for fonts and images.
    assetsInlineLimit: 0,
    sourcemap: false,
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

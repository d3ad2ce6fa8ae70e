import type { Plugin } from 'vite';

/** The meta tag the server reads at start-up to say which React bundle it serves (server/src/main.ts). */
export const BUNDLE_MODE_META = 'medshare-bundle';

/**
 * `vite build` takes NODE_ENV from the environment, so a shell with NODE_ENV=development built
 * React's development bundle (StrictMode runs every effect twice: each data call went out twice).
 * A production-mode build is always a production bundle; `vite build --mode development` still
 * asks for the other one explicitly. The result is stamped into index.html.
 */
export function bundleMode(): Plugin {
  let isProduction = true;
  return {
    name: 'medshare-bundle-mode',
    apply: 'build',
    config(_config, { mode }) {
      // Read by Vite after the config is loaded (resolveConfig's isProduction and the define).
      if (mode === 'production') process.env.NODE_ENV = 'production';
    },
    configResolved(config) {
      isProduction = config.isProduction;
    },
    transformIndexHtml() {
      return [
        {
          tag: 'meta',
          attrs: { name: BUNDLE_MODE_META, content: isProduction ? 'production' : 'development' },
          injectTo: 'head',
        },
      ];
    },
  };
}

/**
 * After `vite build` and the server-side build of src/app/prerender-pages.tsx into .ssr/: writes one
 * HTML file per static page (dist/landing.html, dist/login.html), index.html with the page's static
 * HTML in it and its boot script in place of the app's entry, which the server sends for the page's
 * path (server/src/app.ts registerWebApp; docs/decisions.md › Static first pages). Then the chunks
 * each route needs, for the server to preload with index.html (dist/route-preloads.json,
 * build/route-preloads.ts), from Vite's manifest, which is removed: nothing serves it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, type Rolldown } from 'vite';
import { APP_ENTRY_META, APP_STYLE_META, COPY_PATH, STATIC_COPY_ID } from '../src/lib/static-page.ts';
import { type Manifest, routePreloads } from './route-preloads.ts';

const dist = new URL('../dist/', import.meta.url);
const ssrDir = new URL('../.ssr/', import.meta.url);
const NONCE_PLACEHOLDER = '__CSP_NONCE__';
const ROOT = '<div id="root"></div>';
/**
 * No paint before the static copy is parsed whole: `#root` comes right after it. Over a slow link
 * Chromium drew the page half-parsed, and the sign-in card, centred, moved up as its other fields
 * came (a layout shift of 0.02-0.05 in about one load of two; e2e/tests/layout-shifts.spec.ts).
 * Browsers without `rel=expect` ignore it and draw as before.
 */
const DRAW_WHEN_PARSED = '<link rel="expect" href="#root" blocking="render">';

type StaticPageName = 'landing' | 'login';
const { renderStaticPage, STATIC_PAGES, routePageFiles } = (await import(
  new URL('prerender-pages.js', ssrDir).href
)) as {
  renderStaticPage: (name: StaticPageName, nonce: string) => { html: string; style: string };
  STATIC_PAGES: Record<StaticPageName, { path: string }>;
  routePageFiles: () => { path: string; files: string[] }[];
};

const index = readFileSync(new URL('index.html', dist), 'utf8');
if (!index.includes(ROOT)) throw new Error(`prerender: index.html has no ${ROOT}`);
const tag = (pattern: RegExp, what: string) => {
  const match = pattern.exec(index);
  if (!match) throw new Error(`prerender: index.html has no ${what}`);
  return { tag: match[0], url: match[1]! };
};
const entry = tag(/<script type="module"[^>]* src="(\/assets\/index-[\w-]+\.js)"[^>]*><\/script>/, 'entry script');
const style = tag(/<link rel="stylesheet"[^>]* href="(\/assets\/index-[\w-]+\.css)"[^>]*>/, 'style sheet link');

const boot = await buildBootScript();
const bootTag = `<script type="module" src="/${boot}" nonce="${NONCE_PLACEHOLDER}"></script>`;

for (const name of Object.keys(STATIC_PAGES) as StaticPageName[]) {
  const page = renderStaticPage(name, NONCE_PLACEHOLDER);
  if (!page.html.includes('<h1')) throw new Error(`prerender: the ${name} page rendered without its heading`);
  if (page.html.includes('<style')) throw new Error(`prerender: styles were written into the ${name} page's markup`);

  // The CSP refuses style attributes in HTML (no 'unsafe-inline'; React in the browser sets styles
  // through the DOM, which it allows): each becomes a rule of the nonce'd style sheet instead.
  const attributeRules: string[] = [];
  const markup = page.html
    .replace(/ style="([^"]*)"/g, (_match, css: string) => {
      const id = attributeRules.length;
      attributeRules.push(`[data-prerendered-style="${id}"]{${unescapeAttribute(css)}}`);
      return ` data-prerendered-style="${id}"`;
    })
    // A blank placeholder, so that the page's sheet can tell a field with a value (renderStaticPage).
    .replace(/<input(?![^>]*\splaceholder=)/g, '<input placeholder=" "')
    // Without the boot script (scripts blocked, or its file lost on the way) a form must not send
    // anything: its submit buttons start disabled, which also stops Enter in a field from submitting,
    // and the boot script enables them. Were it ever sent, a POST keeps the fields out of the URL.
    .replace(/<form(?![^>]*\smethod=)/g, '<form method="post"')
    .replace(/<button(?=[^>]*\stype="submit")/g, '<button disabled=""');
  // While the copy is there, the app renders hidden behind it (lib/prerendered.ts).
  const rules = `${attributeRules.join('')}#${STATIC_COPY_ID}+#root{display:none}`;
  const styleTag = page.style.replace('</style>', `${rules}</style>`);

  // The app's entry, its preloads and its style sheet become names the boot script reads: nothing of
  // the app is fetched before the page is drawn, or run before it is needed.
  const html = index
    .replace(entry.tag, `<meta name="${APP_ENTRY_META}" content="${entry.url}">`)
    .replace(style.tag, `<meta name="${APP_STYLE_META}" content="${style.url}">`)
    .replace(/ *<link rel="modulepreload"[^>]*>\n?/g, '')
    .replace('</head>', `  ${bootTag}\n    ${styleTag}\n    ${DRAW_WHEN_PARSED}\n  </head>`)
    .replace(ROOT, `<div id="${STATIC_COPY_ID}" data-${COPY_PATH}="${STATIC_PAGES[name].path}">${markup}</div>${ROOT}`);
  if (/<script[^>]* src="\/assets\/index-/.test(html)) throw new Error(`prerender: the ${name} page loads the app`);
  writeFileSync(new URL(`${name}.html`, dist), html);
  process.stdout.write(`prerendered the ${name} page: dist/${name}.html (${Math.round(html.length / 1024)} KiB)\n`);
}

const manifestDir = new URL('.vite/', dist);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', manifestDir), 'utf8')) as Manifest;
const inHtml = new Set([
  entry.url,
  ...[...index.matchAll(/<link rel="modulepreload"[^>]* href="([^"]+)"/g)].map((m) => m[1]!),
]);
const preloads = routePreloads(routePageFiles(), manifest, inHtml);
writeFileSync(new URL('route-preloads.json', dist), `${JSON.stringify(preloads, null, 2)}\n`);
process.stdout.write(
  `route preloads: ${preloads.length} routes, ${Math.max(...preloads.map((p) => p.files.length))} files at most\n`,
);
rmSync(manifestDir, { recursive: true, force: true });
rmSync(ssrDir, { recursive: true, force: true });

/** src/boot/static-page-boot.ts with its few imports, as one file of its own beside the app's chunks. */
async function buildBootScript(): Promise<string> {
  const result = await build({
    configFile: false,
    root: fileURLToPath(new URL('..', import.meta.url)),
    logLevel: 'warn',
    publicDir: false,
    build: {
      write: false,
      modulePreload: false,
      rolldownOptions: {
        input: fileURLToPath(new URL('../src/boot/static-page-boot.ts', import.meta.url)),
        output: { entryFileNames: 'assets/static-page-boot-[hash].js' },
      },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((c): c is Rolldown.OutputChunk => c.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`prerender: the boot script built as ${chunks.length} chunks, not one`);
  const chunk = chunks[0]!;
  writeFileSync(new URL(chunk.fileName, dist), chunk.code);
  return chunk.fileName;
}

/** The few entities React writes in an attribute value. */
function unescapeAttribute(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

// redux-persist's rehydration timer would keep the process alive for its timeout.
process.exit(0);

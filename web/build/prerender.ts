/**
 * After `vite build` and the server-side build of src/app/prerender-landing.tsx into .ssr/: writes
 * dist/landing.html, index.html with the landing page's static HTML in it, which the server sends
 * for `/` (server/src/app.ts registerWebApp; docs/decisions.md › Prerendered landing page).
 */
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { PRERENDERED_ID } from '../src/lib/prerendered.ts';

const dist = new URL('../dist/', import.meta.url);
const ssrDir = new URL('../.ssr/', import.meta.url);
const NONCE_PLACEHOLDER = '__CSP_NONCE__';
const ROOT = '<div id="root"></div>';

const { renderLanding } = (await import(new URL('prerender-landing.js', ssrDir).href)) as {
  renderLanding: (nonce: string) => { html: string; style: string };
};
const landing = renderLanding(NONCE_PLACEHOLDER);
if (!landing.html.includes('<h1')) throw new Error('prerender: the landing page rendered without its heading');
if (landing.html.includes('<style')) throw new Error('prerender: styles were written into the markup');

// The CSP refuses style attributes in HTML (no 'unsafe-inline'; React in the browser sets styles
// through the DOM, which it allows): each becomes a rule of the nonce'd style sheet instead.
const attributeRules: string[] = [];
const markup = landing.html.replace(/ style="([^"]*)"/g, (_match, css: string) => {
  const id = attributeRules.length;
  attributeRules.push(`[data-prerendered-style="${id}"]{${unescapeAttribute(css)}}`);
  return ` data-prerendered-style="${id}"`;
});
const style = attributeRules.length
  ? landing.style.replace('</style>', `${attributeRules.join('')}</style>`)
  : landing.style;

const index = readFileSync(new URL('index.html', dist), 'utf8');
if (!index.includes(ROOT)) throw new Error(`prerender: index.html has no ${ROOT}`);
// The static page is drawn before the JavaScript runs, so the font must come with the style sheet:
// text first drawn in the fallback font would move when Inter arrives.
const font = readdirSync(new URL('assets/', dist)).find((file) => /^inter-latin-wght-normal-[\w-]+\.woff2$/.test(file));
if (!font) throw new Error('prerender: no Latin Inter font file in dist/assets');

const html = index
  .replace(
    '</head>',
    `  <link rel="preload" as="font" type="font/woff2" crossorigin href="/assets/${font}">\n    ${style}\n  </head>`,
  )
  .replace(ROOT, `<div id="${PRERENDERED_ID}">${markup}</div>${ROOT}`);
writeFileSync(new URL('landing.html', dist), html);
rmSync(ssrDir, { recursive: true, force: true });
process.stdout.write(`prerendered the landing page: dist/landing.html (${Math.round(html.length / 1024)} KiB)\n`);

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

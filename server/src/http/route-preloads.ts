import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * What the web build lists for each route (web/build/route-preloads.ts): its React Router pattern, the
 * same as a RegExp source, and the chunks its pages need beyond what index.html loads. Only asset
 * URLs of the build's own shape are taken, since they are written into HTML.
 */
const RoutePreloadsSchema = z.array(
  z.object({
    path: z.string(),
    pattern: z.string(),
    files: z.array(z.string().regex(/^\/assets\/[\w.-]+\.js$/)),
  }),
);

/**
 * index.html for each path of the app: with `<link rel="modulepreload">` for the chunks of the page
 * the path opens, so that the browser asks for them beside the entry instead of after it has arrived
 * and run (on Lighthouse's phone link a round trip and the entry's evaluation; docs/decisions.md ›
 * Route chunks preloaded with the HTML). The server does not know whether the visitor is signed in
 * (the session is in the browser's storage), so a signed-out visitor to a signed-in page gets its
 * chunks too, which the page then uses after the sign-in it is sent to. Without the build's list
 * (an older build, the tests' tiny app) every path gets index.html as it is.
 */
export function indexHtmlByPath(dist: string, indexHtml: string): (path: string) => string {
  const file = `${dist}/route-preloads.json`;
  if (!existsSync(file)) return () => indexHtml;
  const routes = RoutePreloadsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  if (!indexHtml.includes('</head>')) throw new Error(`${dist}/index.html has no </head> for the route preloads`);
  const pages = routes.map(({ pattern, files }) => ({
    // React Router matches paths case-insensitively.
    pattern: new RegExp(pattern, 'i'),
    html: indexHtml.replace(
      '</head>',
      `${files.map((href) => `  <link rel="modulepreload" crossorigin href="${href}">\n`).join('')}  </head>`,
    ),
  }));
  return (path) => pages.find(({ pattern }) => pattern.test(path))?.html ?? indexHtml;
}

/**
 * The chunks each route's pages need, for the server to name in `<link rel="modulepreload">` with
 * that path's HTML (server/src/http/route-preloads.ts; docs/decisions.md › Route chunks preloaded
 * with the HTML). Without them a page's chunks are asked only once the entry has arrived and run:
 * on a phone's link one round trip and the entry's evaluation after its last byte.
 *
 * Input: the router's `routePageFiles()` (src/app/router.tsx, run from the server-side build) and
 * Vite's manifest of the browser build (`build.manifest`), whose keys are source files relative to
 * web/ and whose `imports` are each chunk's static imports.
 */
import { posix } from 'node:path';

export type ManifestChunk = { file: string; imports?: string[]; isEntry?: boolean };
export type Manifest = Record<string, ManifestChunk>;

/** One route: its React Router pattern, the same as a RegExp's source, and the files to preload. */
export type RoutePreload = { path: string; pattern: string; files: string[] };

/** The router's page files are relative to it; the manifest's keys to web/. */
const ROUTER_DIR = 'src/app';

export function routePreloads(
  routes: { path: string; files: string[] }[],
  manifest: Manifest,
  /** Files the HTML already loads (the entry and its preloads), as `/assets/…` URLs. */
  inHtml: Set<string>,
): RoutePreload[] {
  const preloads = routes.map(({ path, files }) => {
    const urls: string[] = [];
    const visit = (key: string) => {
      const chunk = manifest[key];
      if (!chunk) throw new Error(`route preloads: no chunk for ${key} in the build's manifest (route ${path})`);
      const url = `/${chunk.file}`;
      // The entry (and everything it imports) is in the HTML already.
      if (chunk.isEntry || inHtml.has(url) || urls.includes(url)) return;
      urls.push(url);
      for (const imported of chunk.imports ?? []) visit(imported);
    };
    for (const file of files) visit(posix.join(ROUTER_DIR, file));
    return { path, pattern: patternSource(path), files: urls };
  });
  // A splat matches what the others do not (React Router ranks it last); the server takes the first match.
  return [...preloads.filter((p) => !p.path.includes('*')), ...preloads.filter((p) => p.path.includes('*'))];
}

/**
 * A React Router path pattern as a RegExp source matching the same paths (case-insensitive, as React
 * Router matches by default; trailing slashes allowed, any number of them as React Router does):
 * `:name` one segment, `:name?` an optional one, `*` the rest.
 */
export function patternSource(path: string): string {
  const segments = path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      if (segment === '*') return '(?:/.*)?';
      if (segment.startsWith(':')) return segment.endsWith('?') ? '(?:/[^/]+)?' : '/[^/]+';
      return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    });
  return `^${segments.join('')}/*$`;
}

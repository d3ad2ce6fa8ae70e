import { use, type ComponentType } from 'react';

export type PageModule = { default: ComponentType };

/**
 * Each lazily loaded page's import, so that the start-up can begin it before React asks for it, and
 * its source file, by which the build names the chunks a route needs (web/build/route-preloads.ts).
 */
const pages = new Map<unknown, { start: () => Promise<PageModule>; file: string | undefined }>();

/**
 * A page in a chunk of its own, loaded once. Unlike `React.lazy`, whose first render always suspends
 * (it learns of the import's end in a microtask), a page whose chunk has arrived renders at once. The
 * first render, which main.tsx holds until the page's chunks are in, then shows no fallback, and so
 * React does not hold the page back for its 300 ms reveal throttle (docs/decisions.md › Pages
 * rendered once their chunks are in). Before its chunk, the page suspends as a lazy one does.
 */
export function lazyPage(load: () => Promise<PageModule>, name: string, file?: string): ComponentType {
  let started: Promise<PageModule> | undefined;
  const start = (): Promise<PageModule> => {
    if (started) return started;
    // The fields React's `use` reads on a promise: once `status` is 'fulfilled', `value` at once.
    const loading = Object.assign(load(), { status: 'pending' });
    // The handlers return nothing: returning the promise itself would reject this chain unhandled.
    loading.then(
      (module) => void Object.assign(loading, { status: 'fulfilled', value: module }),
      (reason: unknown) => void Object.assign(loading, { status: 'rejected', reason }),
    );
    return (started = loading);
  };
  function Page() {
    const { default: Component } = use(start());
    return <Component />;
  }
  Page.displayName = name;
  pages.set(Page, { start, file });
  return Page;
}

/** What starts (once) the import of a page made by `lazyPage`; undefined for any other component. */
export const pageLoader = (component: unknown): (() => Promise<PageModule>) | undefined => pages.get(component)?.start;

/** The source file of a page made by `lazyPage`, as it was given; undefined for any other component. */
export const pageFile = (component: unknown): string | undefined => pages.get(component)?.file;

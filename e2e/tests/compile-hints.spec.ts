import { expect, test } from '@playwright/test';

/**
 * The built app carries V8's compile hint on the first line of its entry and of its page chunks, and
 * not on the DICOM viewer's library chunk (web/build/compile-hints.ts, docs/decisions.md › Compile
 * hints). On any later line V8 ignores it, which a change in how Vite writes the entry would cause
 * without any test of behaviour noticing.
 */
const HINT = '//# allFunctionsCalledOnLoad';
/** A file's first line, cut short: the entry's second line is a list of every chunk. */
const firstLine = (code: string) => code.split('\n', 1)[0]!.slice(0, 80);

test('the entry and the page chunks start with the compile hint; the DICOM viewer library does not', async ({
  request,
}) => {
  const html = await (await request.get('/view-images')).text();
  const entry = /<script type="module"[^>]* src="(\/assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
  expect(entry, 'the entry script in index.html').toBeTruthy();
  const entryCode = await (await request.get(entry!)).text();
  expect(firstLine(entryCode)).toBe(HINT);

  // A chunk names the chunks it loads (Vite's preload list): the entry names the pages, the DICOM
  // viewer's page names the viewer library.
  const named = async (name: string, by: string) => {
    const file = new RegExp(`assets/(${name}-[\\w-]+\\.js)`).exec(by)?.[1];
    expect(file, `the ${name} chunk`).toBeTruthy();
    return (await request.get(`/assets/${file}`)).text();
  };
  for (const name of ['view-images', 'app-layout', 'dicom-viewer-route'])
    expect(firstLine(await named(name, entryCode)), name).toBe(HINT);
  const viewerCode = await named('cornerstone-viewer', await named('dicom-viewer-route', entryCode));
  expect(viewerCode.length).toBeGreaterThan(1024 * 1024);
  expect(viewerCode).not.toContain(HINT);
});

/**
 * The CSP forbids eval. zod 4 probes for it with `new Function('')` when a schema is built and
 * swallows the error, but the browser still reports a CSP violation on every page that loads the
 * schemas. Turning the JIT off skips the probe; parsing stays correct, only the compiled fast path goes.
 *
 * Set through the global zod reads its configuration from when it loads (`__zod_globalConfig`, which
 * copies of zod share), not through `z.config()`: importing zod here would put it in the entry, and
 * most pages never load it (docs/architecture.md › Frontend, "Start-up"). zod-jitless.test.ts checks
 * that zod still takes it. Imported first in main.tsx, before any schema can be built.
 */
const scope = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
// Changed in place: were zod ever loaded first, it would hold this very object.
(scope.__zod_globalConfig ??= {}).jitless = true;

export {};

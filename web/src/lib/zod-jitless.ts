import { z } from 'zod';

/**
 * The CSP forbids eval. zod 4 probes for it with `new Function('')` when a schema is built and
 * swallows the error, but the browser still reports a CSP violation on every page that loads the
 * schemas. Turning the JIT off skips the probe; parsing stays correct, only the compiled fast path goes.
 * Imported first in main.tsx, before any schema is constructed.
 */
z.config({ jitless: true });

import { AsyncLocalStorage } from 'node:async_hooks';

/** What one request has written to the audit trail so far (see http/refusal-audit.ts). */
export interface AuditScope {
  /** A service already recorded why it refused (e.g. `image.view` failure): no second row. */
  failureRecorded: boolean;
}

/** Entered per request by the refusal audit; `audit.record` marks failure rows in it. */
export const auditScope = new AsyncLocalStorage<AuditScope>();

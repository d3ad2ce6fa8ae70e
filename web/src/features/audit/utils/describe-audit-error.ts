import { ApiError } from '../../../lib/api-client';

/**
 * `docs/product.md` › Messages and errors: a failed audit read shows in the table as 'Error data:
 * …' when the server answered with an error, 'Error request: …' when no answer came, and 'Error
 * message: …' otherwise.
 */
export function describeAuditError(error: unknown): string {
  if (error instanceof ApiError && error.status > 0) {
    return `Error data: ${error.message || `the server answered ${error.status}`}`;
  }
  if (error instanceof ApiError) {
    return 'Error request: no response from the server. Backend server is not reachable. Please check your server.';
  }
  const message = error instanceof Error ? error.message : String(error);
  return `Error message: ${message || 'something went wrong'}`;
}

import { endSession } from '../../../lib/api-client';

/**
 * The stream's own "session is over" (a 401, or `event: end` with a session reason): the API client's
 * own steps for a 401 (`endSession`), since a stream response never passes through it.
 */
export function endSessionFromStream(): Promise<void> {
  return endSession();
}

import { hardNavigate } from '../../../lib/navigation';
import { clearSession } from '../../../lib/session';
import { markSessionEnded } from '../../../lib/session-ended';
import { persistor, store } from '../../../lib/store';

/**
 * The stream's own "session is over" (a 401, or `event: end` with a session reason): the same
 * steps the API client takes on a 401, since a stream response never passes through it.
 */
export async function endSessionFromStream(): Promise<void> {
  store.dispatch(clearSession());
  await persistor.flush();
  markSessionEnded();
  hardNavigate('/login');
}
